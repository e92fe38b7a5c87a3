package calc

import (
	"fmt"
	"slices"
)

// trace collects a calculation's lines, assumptions and warnings.
type trace struct {
	lines       []Line
	assumptions []string
	warnings    []string
}

func (t *trace) add(name string, amount Decimal, rule string, factIDs ...string) {
	ids := make([]string, 0, len(factIDs))
	for _, id := range factIDs {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	t.lines = append(t.lines, Line{Name: name, Amount: amount.Money(), Rule: rule, FactIDs: ids})
}

func (t *trace) assume(format string, args ...any) {
	t.assumptions = append(t.assumptions, fmt.Sprintf(format, args...))
}

func (t *trace) warn(format string, args ...any) {
	t.warnings = append(t.warnings, fmt.Sprintf(format, args...))
}

func (t *trace) result(currency string, total Decimal) Result {
	return Result{Currency: currency, Total: total.Money(), Lines: t.lines, Assumptions: t.assumptions, Warnings: t.warnings}
}

// lookup gathers parameter reads so a calculator can read all of them and
// then report every missing series at once.
type lookup struct {
	p       Params
	date    string
	missing []string
}

func (l *lookup) value(series, key string) (Decimal, string) {
	d, id, err := l.p.ValueOn(series, key, l.date)
	if err != nil {
		if !slices.Contains(l.missing, series) {
			l.missing = append(l.missing, series)
		}
		return Decimal{}, ""
	}
	return d, id
}

func (l *lookup) amount(series string) (Decimal, string)  { return l.value(series, "amount") }
func (l *lookup) percent(series string) (Decimal, string) { return l.value(series, "percent") }

func (l *lookup) err() error {
	if len(l.missing) == 0 {
		return nil
	}
	return &MissingFactsError{Date: l.date, Series: l.missing}
}

// pct formats a percent for a rule: "20%", "4.1%".
func pct(d Decimal) string { return d.String() + "%" }
