package chat

import (
	"fmt"
	"strings"
	"sync"

	"regintel/shared/conversation"
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

// historyForLLM is an earlier turn's question and answer as they may be
// sent to the model. Text stored redacted under the detectors' current
// version is sent as stored: a second pass would find nothing new.
func (r redactor) historyForLLM(turn conversation.Turn) (user, assistant string) {
	if r.llm && turn.Metadata.Redaction == pii.Version {
		return turn.UserText, turn.AssistantText
	}
	return r.forLLM(turn.UserText), r.forLLM(turn.AssistantText)
}

// redact replaces personal data with typed markers; pii reads the text in
// the folded form the graph guard checks, so a value disguised with
// zero-width characters, other digits or look-alike letters is replaced
// whole in the original text.
func redact(text string) (string, bool) {
	out, kinds := pii.Redact(text)
	return out, len(kinds) > 0
}

// StoredUpdate is u with its free text (title, persona) as it may be
// stored under the PII mode.
func (e *Engine) StoredUpdate(u conversation.Update) conversation.Update {
	if u.Title != nil {
		title := e.storedText(*u.Title)
		u.Title = &title
	}
	if u.Profile != nil {
		p := *u.Profile
		p.PersonaType = e.storedText(p.PersonaType)
		u.Profile = &p
	}
	return u
}

// storedAnswer is the turn's answer as it may be stored, decided as it
// arrives (see pii.Stream): the recorder writes each decided part once,
// and the stored answer is those parts, not a second redaction of the
// whole. Without store redaction every part is decided as it comes.
type storedAnswer struct {
	mu     sync.Mutex
	redact bool
	text   pii.Stream
	plain  strings.Builder // without redaction: the answer as written
	taken  int
}

func (a *storedAnswer) write(piece string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.redact {
		a.text.Write(piece)
		return
	}
	a.plain.WriteString(piece)
}

// next returns the answer decided since the last call, as written and as
// it may be stored; final decides the rest.
func (a *storedAnswer) next(final bool) (raw, stored string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.redact {
		return a.text.Next(final)
	}
	all := a.plain.String()
	raw, a.taken = all[a.taken:], len(all)
	return raw, raw
}

// soFar is the decided answer as it may be stored.
func (a *storedAnswer) soFar() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.redact {
		return a.text.Redacted()
	}
	return a.plain.String()[:a.taken]
}

// whole decides the rest and returns the answer as it may be stored, and
// whether redaction changed it.
func (a *storedAnswer) whole() (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.redact {
		return a.plain.String(), false
	}
	a.text.Decide(true)
	out := a.text.Redacted()
	return out, out != a.text.Raw()
}
