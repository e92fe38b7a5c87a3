package chat

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"regintel/shared/graph"
	"regintel/shared/graph/textindex"
	"regintel/shared/memo"
)

// readFactsPerConcept is how many facts grounding reads for one concept;
// focusFacts keeps maxFactsPerConcept of them. A concept with many bands
// (VRT has one per CO2 step) would otherwise lose the band the question is
// about to the node order.
const readFactsPerConcept = 3 * maxFactsPerConcept

// questionNumber is a number as people write one: digits with optional
// thousands commas and a decimal part ("150", "50,000", "13.5").
var questionNumber = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`)

// focusFacts keeps at most limit facts per concept. Bands whose bounds hold
// a number the question names come first; then facts whose label or scope
// (applies_to) shares more of the question's words, so "a hotel stay" puts
// the accommodation rate before the standard one and "heating oil" the
// heating fuels' carbon rate before the auto fuels'; the rest keep the
// graph's order (valid on the as-of date, newest first, then neighbours).
func focusFacts(found []graph.GroundedConcept, question string, limit int) []graph.GroundedConcept {
	numbers := numbersIn(question)
	words := textindex.Expand(textindex.Words(question))
	for i := range found {
		facts := slices.Clone(found[i].Facts)
		scope := make(map[string]int, len(facts))
		inBand := make(map[string]int, len(facts))
		for _, f := range facts {
			scope[f.NodeID] = scopeMatches(f, words)
			inBand[f.NodeID] = boolRank(bandHolds(f, numbers))
		}
		slices.SortStableFunc(facts, func(a, b graph.Fact) int {
			if byBand := inBand[b.NodeID] - inBand[a.NodeID]; byBand != 0 {
				return byBand
			}
			if byScope := scope[b.NodeID] - scope[a.NodeID]; byScope != 0 {
				return byScope
			}
			return boolRank(isGeneral(b)) - boolRank(isGeneral(a))
		})
		if len(facts) > limit {
			facts = facts[:limit]
		}
		found[i].Facts = facts
	}
	return found
}

// isGeneral reports whether the fact applies generally: it names no scope.
func isGeneral(f graph.Fact) bool {
	code, _ := f.Properties["applies_to"].(string)
	return code == ""
}

// scopeMatches counts the question's words found in the fact's label and
// in its scope code (applies_to, snake_case).
func scopeMatches(f graph.Fact, question []string) int {
	code, _ := f.Properties["applies_to"].(string)
	own := scopeWords(f.Label + " " + strings.ReplaceAll(code, "_", " "))
	n := 0
	for _, w := range question {
		if slices.Contains(own, w) {
			n++
		}
	}
	return n
}

// factScopeWords remembers the words of facts' labels and scopes: the
// same facts are focused on every turn that grounds their concept.
var factScopeWords = memo.New[[]string](4096)

// scopeWords is textindex.Words of a fact's label and scope; the slice is
// shared, to be read only.
func scopeWords(text string) []string {
	if len(text) > memo.ShortText {
		return textindex.Words(text)
	}
	if words, ok := factScopeWords.Get(text); ok {
		return words
	}
	words := textindex.Words(text)
	factScopeWords.Put(text, words)
	return words
}

// numbersIn returns the numbers in text, leaving out what reads as a year
// (1900 to 2099 written without a thousands comma), which names a date,
// not an amount.
func numbersIn(text string) []float64 {
	var out []float64
	for _, m := range questionNumber.FindAllString(text, -1) {
		n, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
		if err != nil || (len(m) == 4 && n >= 1900 && n < 2100) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// bandHolds reports whether one of numbers falls in the fact's band: above
// its lower bound and at most its upper bound (no upper bound: open above).
func bandHolds(f graph.Fact, numbers []float64) bool {
	lower, hasLower := asNumber(f.Properties["lower_amount"])
	upper, hasUpper := asNumber(f.Properties["upper_amount"])
	if !hasLower && !hasUpper {
		return false
	}
	for _, n := range numbers {
		if (!hasLower || n > lower || (n == 0 && lower == 0)) && (!hasUpper || n <= upper) {
			return true
		}
	}
	return false
}

func asNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
