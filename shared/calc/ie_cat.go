package calc

import (
	"encoding/json"
	"fmt"
)

// Irish Capital Acquisitions Tax series (TAX:IE:CAT).
const (
	catThresholdPrefix = "TAX:IE:CAT:THRESHOLD:GROUP_"
	catRate            = "TAX:IE:CAT:RATE:STANDARD"
	ieCATDescription   = "Irish Capital Acquisitions Tax on a gift or inheritance: the rate on the part of this benefit that, with earlier benefits in the same group, exceeds the group threshold on the date of the benefit."
)

func init() { Register(ieCAT{}) }

// ieCAT aggregates the benefit with earlier ones within the same group
// threshold (the threshold of the date of this benefit applies to all) and
// charges the rate on the excess not already taxed, to the cent, half up.
// Revenue's CAT examples work in whole euro; every figure here is exact
// to the cent before rounding.
type ieCAT struct{}

type ieCATInputs struct {
	Group        string   `json:"group"`
	Value        *Decimal `json:"value"`
	PriorInGroup *Decimal `json:"priorInGroup"`
	Date         string   `json:"date"`
}

func (ieCAT) Name() string         { return "ie_cat" }
func (ieCAT) Jurisdiction() string { return "IE" }
func (ieCAT) Description() string  { return ieCATDescription }

func (ieCAT) InputSchema() map[string]any {
	return objectSchema([]string{"group", "value"}, map[string]any{
		"group":        enumSchema("Group threshold by relationship to the disponer: A (child), B (sibling, niece, nephew, lineal ancestor or descendant), C (other).", "A", "B", "C"),
		"value":        moneySchema("Taxable value of this gift or inheritance, EUR."),
		"priorInGroup": moneySchema("Taxable value of earlier benefits taken within the same group threshold, EUR."),
		"date":         dateSchema("The valuation date of the benefit (defaults to the request's date)."),
	})
}

func (ieCAT) Series(string) []string {
	return []string{catThresholdPrefix + "A", catThresholdPrefix + "B", catThresholdPrefix + "C", catRate}
}

// InputDate is the benefit's date when the request names none.
func (ieCAT) InputDate(raw json.RawMessage) (string, bool, error) { return inputDate(raw) }

func (c ieCAT) Compute(p Params, raw json.RawMessage) (Result, error) {
	var in ieCATInputs
	if err := DecodeInputs(raw, &in); err != nil {
		return Result{}, err
	}
	if err := checkInputDate(in.Date, p.Date); err != nil {
		return Result{}, err
	}
	group, err := CheckChoice("group", in.Group, "", "A", "B", "C")
	if err != nil {
		return Result{}, err
	}
	value, err := CheckAmount("value", in.Value, true)
	if err != nil {
		return Result{}, err
	}
	prior, err := CheckAmount("priorInGroup", in.PriorInGroup, false)
	if err != nil {
		return Result{}, err
	}
	l := &lookup{p: p, date: p.Date}
	threshold, thresholdID := l.amount(catThresholdPrefix + group)
	rate, rateID := l.percent(catRate)
	if err := l.err(); err != nil {
		return Result{}, err
	}
	var t trace
	t.add("threshold", threshold, fmt.Sprintf("group %s threshold on %s", group, p.Date), thresholdID)
	aggregate := prior.Add(value)
	t.add("aggregate", aggregate, fmt.Sprintf("earlier benefits %s + this benefit %s", prior.Money(), value.Money()))
	taxableNow := aggregate.Sub(threshold).Clamp0()
	taxableBefore := prior.Sub(threshold).Clamp0()
	taxable := taxableNow.Sub(taxableBefore)
	t.add("taxableExcess", taxable, fmt.Sprintf("excess of the aggregate over the threshold (%s) less the excess already reached by earlier benefits (%s)", taxableNow.Money(), taxableBefore.Money()), thresholdID)
	cat := taxable.Percent(rate).Cents()
	t.add("cat", cat, fmt.Sprintf("%s × %s", taxable.Money(), pct(rate)), rateID)
	t.assume("the values are taxable values (after any exemptions, reliefs and the small gift exemption), and the earlier benefits were taken on or after 5 December 1991")
	return t.result("EUR", cat), nil
}

// inputDate reads an optional "date" input for InputDater.
func inputDate(raw json.RawMessage) (string, bool, error) {
	var probe struct {
		Date any `json:"date"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil || probe.Date == nil {
		return "", false, nil
	}
	s, ok := probe.Date.(string)
	if !ok {
		return "", false, &FieldError{Field: "inputs.date", Message: "must be an ISO date (YYYY-MM-DD)"}
	}
	d, err := ResolveDate(Request{AsOf: s}, "IE", timeZero)
	if err != nil {
		return "", false, &FieldError{Field: "inputs.date", Message: err.(*FieldError).Message}
	}
	return d, true, nil
}

// checkInputDate requires an input date, when given, to be the date the
// calculation runs on.
func checkInputDate(inputDate, date string) error {
	if inputDate != "" && inputDate != date {
		return &FieldError{Field: "inputs.date", Message: fmt.Sprintf("%s differs from the request's date %s: give one", inputDate, date)}
	}
	return nil
}
