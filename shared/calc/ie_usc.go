package calc

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Irish Universal Social Charge series (TAX:IE:USC). The bands are a
// table read whole: each band fact has percent, lowerAmount and (but the
// top one) upperAmount, in EUR a year.
const (
	uscBandPrefix     = "TAX:IE:USC:RATE:BAND"
	uscExemption      = "TAX:IE:USC:THRESHOLD:EXEMPTION"
	uscReducedRate    = "TAX:IE:USC:RATE:REDUCED"
	uscReducedLimit   = "TAX:IE:USC:THRESHOLD:REDUCED_RATE_INCOME_LIMIT"
	ieUSCDescription  = "Irish Universal Social Charge for a year: nothing at or below the exemption limit, else each band at its rate; medical card holders and people aged 70 or over with income up to the limit pay the reduced rate above the first band."
	uscReducedRateWhy = "reduced rate: medical card or age %s or over, income not above %s"
)

func init() { Register(ieUSC{}) }

// ieUSC charges each band's slice of income at its rate, each to the cent
// (half up), as Revenue's annual USC computations do; income at or below
// the exemption limit pays none (the limit is a test, not an allowance).
type ieUSC struct{}

type ieUSCInputs struct {
	Income      *Decimal     `json:"income"`
	Age         *wholeNumber `json:"age"`
	MedicalCard *bool        `json:"medicalCard"`
}

func (ieUSC) Name() string         { return "ie_usc" }
func (ieUSC) Jurisdiction() string { return "IE" }
func (ieUSC) Description() string  { return ieUSCDescription }

func (ieUSC) InputSchema() map[string]any {
	return objectSchema([]string{"income"}, map[string]any{
		"income":      moneySchema("Annual gross income for USC, EUR (before pension contributions; social welfare payments excluded)."),
		"age":         ageSchema("Age at the end of the year (70 or over may qualify for the reduced rate)."),
		"medicalCard": boolSchema("True for a full medical card holder (may qualify for the reduced rate)."),
	})
}

func (ieUSC) Series(string) []string {
	return []string{uscBandPrefix + "*", uscExemption, uscReducedRate, uscReducedLimit}
}

func (c ieUSC) Compute(p Params, raw json.RawMessage) (Result, error) {
	var in ieUSCInputs
	if err := DecodeInputs(raw, &in); err != nil {
		return Result{}, err
	}
	income, err := CheckAmount("income", in.Income, true)
	if err != nil {
		return Result{}, err
	}
	age, err := checkAge("age", in.Age)
	if err != nil {
		return Result{}, err
	}
	var t trace
	usc, err := ieUSCTrace(p, income, age, in.MedicalCard != nil && *in.MedicalCard, &t, "")
	if err != nil {
		return Result{}, err
	}
	return t.result("EUR", usc), nil
}

type uscBand struct {
	name        string
	rate, lower Decimal
	upper       Decimal
	open        bool
	id          string
}

func uscBands(p Params) ([]uscBand, error) {
	facts := p.WithPrefix(uscBandPrefix, p.Date)
	if len(facts) == 0 {
		return nil, &MissingFactsError{Date: p.Date, Series: []string{uscBandPrefix + "*"}}
	}
	var out []uscBand
	for _, f := range facts {
		rate, ok1 := FactNumber(f, "percent")
		lower, ok2 := FactNumber(f, "lower_amount")
		if !ok1 || !ok2 {
			return nil, &MissingFactsError{Date: p.Date, Series: []string{f.Series + " (percent, lowerAmount)"}}
		}
		upper, hasUpper := FactNumber(f, "upper_amount")
		name, _ := f.Properties["band"].(string)
		if name == "" {
			name = f.Series[len(uscBandPrefix)-len("BAND"):]
		}
		out = append(out, uscBand{name: name, rate: rate, lower: lower, upper: upper, open: !hasUpper, id: f.NodeID})
	}
	slices.SortFunc(out, func(a, b uscBand) int { return a.lower.Cmp(b.lower) })
	for i := 1; i < len(out); i++ {
		if out[i-1].open || out[i-1].upper.Cmp(out[i].lower) != 0 {
			return nil, fmt.Errorf("calc: USC bands valid on %s do not join: %s and %s", p.Date, out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// ieUSCTrace adds the USC lines to t and returns the charge.
func ieUSCTrace(p Params, income Decimal, age int, medicalCard bool, t *trace, prefix string) (Decimal, error) {
	bands, err := uscBands(p)
	if err != nil {
		return Decimal{}, err
	}
	l := &lookup{p: p, date: p.Date}
	exemption, exemptionID := l.amount(uscExemption)
	if err := l.err(); err != nil {
		return Decimal{}, err
	}
	if income.Cmp(exemption) <= 0 {
		t.add(prefix+"usc", Decimal{}, fmt.Sprintf("income %s not above the exemption limit %s", income.Money(), exemption.Money()), exemptionID)
		return Decimal{}, nil
	}
	reduced := false
	var reducedRate Decimal
	var reducedIDs []string
	if medicalCard || age > 0 {
		rate, rateID := l.percent(uscReducedRate)
		limit, limitID := l.amount(uscReducedLimit)
		f, _ := p.Fact(uscReducedRate)
		minAge, hasAge := FactNumber(f, "age")
		if err := l.err(); err != nil {
			return Decimal{}, err
		}
		byAge := hasAge && Int(int64(age)).Cmp(minAge) >= 0
		if (medicalCard || byAge) && income.Cmp(limit) <= 0 {
			reduced, reducedRate, reducedIDs = true, rate, []string{rateID, limitID}
			t.assume(uscReducedRateWhy, minAge, limit.Money())
		}
	}
	var total Decimal
	for i, b := range bands {
		rate, ids := b.rate, []string{b.id}
		if reduced && i > 0 {
			rate, ids = reducedRate, append([]string{b.id}, reducedIDs...)
		}
		if income.Cmp(b.lower) <= 0 {
			break
		}
		top := income
		if !b.open {
			top = income.Min(b.upper)
		}
		slice := top.Sub(b.lower)
		charge := slice.Percent(rate).Cents()
		t.add(prefix+b.name, charge, fmt.Sprintf("%s × %s (income from %s to %s)", slice.Money(), pct(rate), b.lower.Money(), top.Money()), ids...)
		total = total.Add(charge)
	}
	t.add(prefix+"usc", total, fmt.Sprintf("sum of the bands; income above the exemption limit %s", exemption.Money()), exemptionID)
	return total, nil
}
