package chat

import (
	"fmt"

	"regintel/shared/pii"
)

// PII redaction modes (PII_REDACTION): which targets get PII replaced by
// typed markers ("[REDACTED:PHONE]").
const (
	PIIOff   = "off"   // nothing redacted
	PIIStore = "store" // what is stored: messages, answers, supplied context
	PIILLM   = "llm"   // what is sent to the model
	PIIBoth  = "both"  // both (default)
)

// ParsePIIRedaction checks a mode; "" is the default, both.
func ParsePIIRedaction(mode string) (string, error) {
	switch mode {
	case "":
		return PIIBoth, nil
	case PIIOff, PIIStore, PIILLM, PIIBoth:
		return mode, nil
	}
	return "", fmt.Errorf("PII redaction mode %q: use off, store, llm or both", mode)
}

type redactor struct{ store, llm bool }

func newRedactor(mode string) redactor {
	switch mode {
	case PIIOff:
		return redactor{}
	case PIIStore:
		return redactor{store: true}
	case PIILLM:
		return redactor{llm: true}
	default:
		// Unknown modes are refused by config; here the safe choice wins.
		return redactor{store: true, llm: true}
	}
}

// forStore returns text as it may be stored, and whether it changed.
func (r redactor) forStore(text string) (string, bool) {
	if !r.store {
		return text, false
	}
	return redact(text)
}

// forLLM returns text as it may be sent to the model.
func (r redactor) forLLM(text string) string {
	if !r.llm {
		return text
	}
	out, _ := redact(text)
	return out
}

// redact replaces personal data with typed markers; pii reads the text in
// the folded form the graph guard checks, so a value disguised with
// zero-width characters, other digits or look-alike letters is replaced
// whole in the original text.
func redact(text string) (string, bool) {
	out, kinds := pii.Redact(text)
	return out, len(kinds) > 0
}
