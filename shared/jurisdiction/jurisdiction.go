// Package jurisdiction knows the jurisdiction codes the assistant covers:
// ISO country codes of the EU member states, the UK and its neighbours,
// and the EU and GLOBAL scopes that concepts may carry.
package jurisdiction

import (
	"slices"
	"strings"
	"sync"
)

// euMemberStates are the codes whose questions EU law also governs.
var euMemberStates = []string{
	"AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE",
	"IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
}

// others are the codes covered beyond the member states: the UK (and GB,
// NI for its parts), the crown dependencies, the EEA/EFTA states, and the
// EU and GLOBAL scopes.
var others = []string{"UK", "GB", "NI", "IM", "JE", "GG", "IS", "LI", "NO", "CH", "EU", "GLOBAL"}

// Normalize upper-cases and trims a code.
func Normalize(code string) string { return strings.ToUpper(strings.TrimSpace(code)) }

// Known reports whether code (in any case) is a jurisdiction the assistant
// covers, or one a test registered.
func Known(code string) bool {
	c := Normalize(code)
	if slices.Contains(euMemberStates, c) || slices.Contains(others, c) {
		return true
	}
	_, registered := testCodes.Load(c)
	return registered
}

// testCodes are the codes tests registered with RegisterTestCode.
var testCodes sync.Map

// RegisterTestCode makes code known for the rest of the process. Tests
// that share one graph server give each test a jurisdiction of its own and
// register it here, so the graph's write guard, which only takes known
// codes, accepts their concepts. Nothing outside tests calls it.
func RegisterTestCode(code string) { testCodes.Store(Normalize(code), true) }

// IsEUMember reports whether code is an EU member state.
func IsEUMember(code string) bool { return slices.Contains(euMemberStates, Normalize(code)) }
