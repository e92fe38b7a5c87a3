package conversation

import (
	"slices"
	"strings"
)

// PersonaCodes are the personas the instructions may name. A profile's
// personaType that is one of them (in any case, with spaces or hyphens for
// underscores) is a code we render ourselves; any other personaType is the
// user's own words and reaches the model only as fenced data.
var PersonaCodes = []string{
	"individual", "employee", "self_employed", "sole_trader", "partnership", "company_director",
	"employer", "landlord", "tenant", "student", "jobseeker", "carer", "parent",
	"pensioner", "retired", "farmer", "non_resident", "advisor",
}

// PersonaCode returns the persona code personaType names, if it names one.
func PersonaCode(personaType string) (string, bool) {
	code := strings.ToLower(strings.TrimSpace(personaType))
	code = strings.NewReplacer(" ", "_", "-", "_").Replace(code)
	if slices.Contains(PersonaCodes, code) {
		return code, true
	}
	return "", false
}
