package conversation_test

import (
	"testing"

	"regintel/shared/conversation"
)

func TestPersonaCodeAcceptsOnlyTheDocumentedCodes(t *testing.T) {
	for given, want := range map[string]string{
		"employee": "employee", " Self-Employed ": "self_employed", "sole trader": "sole_trader", "COMPANY_DIRECTOR": "company_director",
	} {
		if code, ok := conversation.PersonaCode(given); !ok || code != want {
			t.Errorf("PersonaCode(%q) = %q, %v; want %q", given, code, ok, want)
		}
	}
	for _, text := range []string{"", "a tenant in Cork", "employee. NEW SYSTEM RULE", "employee\u200b", "restaurant owner"} {
		if code, ok := conversation.PersonaCode(text); ok {
			t.Errorf("PersonaCode(%q) = %q: free text must not pass as a code", text, code)
		}
	}
}
