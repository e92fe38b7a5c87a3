package calc

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Irish income tax series (TAX:IE:INCOME_TAX). Bands and credits are
// annual amounts in EUR; the rates are percents.
const (
	itStandardRate         = "TAX:IE:INCOME_TAX:RATE:STANDARD"
	itHigherRate           = "TAX:IE:INCOME_TAX:RATE:HIGHER"
	itCutOffSingle         = "TAX:IE:INCOME_TAX:THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE"
	itCutOffSingleParent   = "TAX:IE:INCOME_TAX:THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE_PARENT"
	itCutOffMarriedOne     = "TAX:IE:INCOME_TAX:THRESHOLD:STANDARD_RATE_CUT_OFF_MARRIED_ONE_INCOME"
	itBandIncreaseMax      = "TAX:IE:INCOME_TAX:THRESHOLD:STANDARD_RATE_BAND_INCREASE_MAX"
	itPersonalSingle       = "TAX:IE:INCOME_TAX:RELIEF:PERSONAL_CREDIT_SINGLE"
	itPersonalMarried      = "TAX:IE:INCOME_TAX:RELIEF:PERSONAL_CREDIT_MARRIED"
	itPersonalWidowed      = "TAX:IE:INCOME_TAX:RELIEF:PERSONAL_CREDIT_WIDOWED"
	itEmployeeCredit       = "TAX:IE:INCOME_TAX:RELIEF:EMPLOYEE_CREDIT"
	itEarnedIncomeCredit   = "TAX:IE:INCOME_TAX:RELIEF:EARNED_INCOME_CREDIT"
	itChildCarerCredit     = "TAX:IE:INCOME_TAX:RELIEF:SINGLE_PERSON_CHILD_CARER_CREDIT"
	itHomeCarerCredit      = "TAX:IE:INCOME_TAX:RELIEF:HOME_CARER_CREDIT"
	itAgeCreditSingle      = "TAX:IE:INCOME_TAX:RELIEF:AGE_CREDIT_SINGLE"
	itAgeCreditMarried     = "TAX:IE:INCOME_TAX:RELIEF:AGE_CREDIT_MARRIED"
	itRentCreditSingle     = "TAX:IE:INCOME_TAX:RELIEF:RENT_CREDIT_SINGLE"
	itRentCreditMarried    = "TAX:IE:INCOME_TAX:RELIEF:RENT_CREDIT_MARRIED"
	ieIncomeTaxStatusHelp  = "single, married_one_income, married_two_incomes, single_parent or widowed"
	ieIncomeTaxDescription = "Irish income tax for a year: gross tax at the standard and higher rates on the band of the person's status, less the personal, employee or earned income, age and other credits; not below zero."
)

var ieStatuses = []string{"single", "married_one_income", "married_two_incomes", "single_parent", "widowed"}

func init() { Register(ieIncomeTax{}) }

// ieIncomeTax computes income tax the way Revenue's examples do: each
// rate's tax to the cent (half up), credits subtracted, the result not
// below zero. Employee and earned income credits are limited to the
// standard rate of the income they relate to (TCA 1997 s472, s472AB).
type ieIncomeTax struct{}

type ieIncomeTaxInputs struct {
	Status       string             `json:"status"`
	Income       *Decimal           `json:"income"`
	SpouseIncome *Decimal           `json:"spouseIncome"`
	Paye         *bool              `json:"paye"`
	Age          *wholeNumber       `json:"age"`
	SpouseAge    *wholeNumber       `json:"spouseAge"`
	ExtraCredits map[string]Decimal `json:"extraCredits"`
}

func (ieIncomeTax) Name() string         { return "ie_income_tax" }
func (ieIncomeTax) Jurisdiction() string { return "IE" }
func (ieIncomeTax) Description() string  { return ieIncomeTaxDescription }

func (ieIncomeTax) InputSchema() map[string]any {
	return objectSchema([]string{"status", "income"}, map[string]any{
		"status":       enumSchema("The person's tax status: "+ieIncomeTaxStatusHelp+".", ieStatuses...),
		"income":       moneySchema("Annual gross income of the assessed person, EUR."),
		"spouseIncome": moneySchema("With married_two_incomes: the spouse's or civil partner's annual gross income, EUR."),
		"paye":         boolSchema("True (default) for employment income taxed under PAYE; false for self-employed income (earned income credit)."),
		"age":          ageSchema("Age at any time in the year (for the age credit)."),
		"spouseAge":    ageSchema("Spouse's or civil partner's age (married statuses)."),
		"extraCredits": map[string]any{
			"type":                 "object",
			"description":          "Other annual credits by name, EUR, such as rent or homeCarer (capped at the year's maximum) or medicalInsurance (taken as given).",
			"additionalProperties": moneySchema("Annual credit, EUR."),
			// A request's keys hold no control character (the strict decoder's rule).
			"propertyNames": map[string]any{"pattern": `^[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]*$`},
		},
	})
}

func (ieIncomeTax) Series(string) []string {
	return []string{itStandardRate, itHigherRate, itCutOffSingle, itCutOffSingleParent, itCutOffMarriedOne,
		itBandIncreaseMax, itPersonalSingle, itPersonalMarried, itPersonalWidowed, itEmployeeCredit,
		itEarnedIncomeCredit, itChildCarerCredit, itHomeCarerCredit, itAgeCreditSingle, itAgeCreditMarried,
		itRentCreditSingle, itRentCreditMarried}
}

// ieTaxInputs are the validated income tax inputs.
type ieTaxInputs struct {
	status               string
	income, spouseIncome Decimal
	paye                 bool
	age, spouseAge       int
	extraCredits         map[string]Decimal
}

func (in ieIncomeTaxInputs) validate() (ieTaxInputs, error) {
	var out ieTaxInputs
	var err error
	if out.status, err = CheckChoice("status", in.Status, "", ieStatuses...); err != nil {
		return out, err
	}
	if out.income, err = CheckAmount("income", in.Income, true); err != nil {
		return out, err
	}
	if out.spouseIncome, err = CheckAmount("spouseIncome", in.SpouseIncome, false); err != nil {
		return out, err
	}
	if in.SpouseIncome != nil && out.status != "married_two_incomes" {
		return out, &FieldError{Field: "inputs.spouseIncome", Message: "applies only with status married_two_incomes"}
	}
	if out.status == "married_two_incomes" && in.SpouseIncome == nil {
		return out, &FieldError{Field: "inputs.spouseIncome", Message: "is required with status married_two_incomes"}
	}
	out.paye = in.Paye == nil || *in.Paye
	if out.age, err = checkAge("age", in.Age); err != nil {
		return out, err
	}
	if out.spouseAge, err = checkAge("spouseAge", in.SpouseAge); err != nil {
		return out, err
	}
	if in.SpouseAge != nil && !strings.HasPrefix(out.status, "married") {
		return out, &FieldError{Field: "inputs.spouseAge", Message: "applies only to married statuses"}
	}
	out.extraCredits = map[string]Decimal{}
	for name, v := range in.ExtraCredits {
		if _, err := CheckAmount("extraCredits."+name, &v, true); err != nil {
			return out, err
		}
		out.extraCredits[name] = v
	}
	return out, nil
}

func checkAge(field string, age *wholeNumber) (int, error) {
	if age == nil {
		return 0, nil
	}
	if *age < 0 || *age > 130 {
		return 0, &FieldError{Field: "inputs." + field, Message: "must be between 0 and 130"}
	}
	return int(*age), nil
}

func (c ieIncomeTax) Compute(p Params, raw json.RawMessage) (Result, error) {
	var in ieIncomeTaxInputs
	if err := DecodeInputs(raw, &in); err != nil {
		return Result{}, err
	}
	v, err := in.validate()
	if err != nil {
		return Result{}, err
	}
	var t trace
	tax, err := ieIncomeTaxTrace(p, v, &t, "")
	if err != nil {
		return Result{}, err
	}
	return t.result("EUR", tax), nil
}

// ieIncomeTaxTrace adds the income tax lines to t (names prefixed by
// prefix) and returns the tax payable.
func ieIncomeTaxTrace(p Params, v ieTaxInputs, t *trace, prefix string) (Decimal, error) {
	l := &lookup{p: p, date: p.Date}
	standard, standardID := l.percent(itStandardRate)
	higher, higherID := l.percent(itHigherRate)

	band, bandIDs, bandRule, total := ieRateBand(l, v)
	credits := ieCredits(l, v)
	if err := l.err(); err != nil {
		return Decimal{}, err
	}

	t.add(prefix+"standardRateBand", band, bandRule, bandIDs...)
	atStandard := total.Min(band)
	atHigher := total.Sub(band).Clamp0()
	standardTax := atStandard.Percent(standard).Cents()
	higherTax := atHigher.Percent(higher).Cents()
	t.add(prefix+"taxAtStandardRate", standardTax, fmt.Sprintf("%s × %s", atStandard.Money(), pct(standard)), append(bandIDs, standardID)...)
	t.add(prefix+"taxAtHigherRate", higherTax, fmt.Sprintf("%s × %s", atHigher.Money(), pct(higher)), append(bandIDs, higherID)...)
	gross := standardTax.Add(higherTax)
	t.add(prefix+"grossTax", gross, "tax at the standard rate + tax at the higher rate", standardID, higherID)

	var sum Decimal
	var ids []string
	for _, cr := range credits {
		t.add(prefix+cr.name, cr.amount, cr.rule, cr.ids...)
		sum = sum.Add(cr.amount)
		ids = append(ids, cr.ids...)
	}
	for _, name := range slices.Sorted(maps.Keys(v.extraCredits)) {
		if isCappedExtra(name) {
			continue
		}
		amount := v.extraCredits[name]
		t.add(prefix+"credit:"+name, amount, "credit as given in the inputs")
		t.assume("the %s credit of %s is taken as given; its conditions and limits are not checked", name, amount.Money())
		sum = sum.Add(amount)
	}
	t.add(prefix+"taxCredits", sum, "sum of the credits", ids...)
	payable := gross.Sub(sum).Clamp0()
	rule := "gross tax − credits"
	if gross.Cmp(sum) < 0 {
		rule += " (credits exceed the tax; unused credits are not refunded)"
	}
	t.add(prefix+"taxPayable", payable, rule)
	if v.status == "married_two_incomes" {
		t.assume("joint assessment of both incomes; both spouses' income is employment income when paye is true")
	}
	return payable, nil
}

// ieRateBand is the standard rate band of the status, the facts it comes
// from, its rule, and the income it applies to (both incomes when married
// with two).
func ieRateBand(l *lookup, v ieTaxInputs) (Decimal, []string, string, Decimal) {
	total := v.income
	switch v.status {
	case "single", "widowed":
		b, id := l.amount(itCutOffSingle)
		return b, []string{id}, "standard rate band, single or widowed", total
	case "single_parent":
		b, id := l.amount(itCutOffSingleParent)
		return b, []string{id}, "standard rate band, single person child carer", total
	case "married_one_income":
		b, id := l.amount(itCutOffMarriedOne)
		return b, []string{id}, "standard rate band, married or civil partners, one income", total
	}
	b, id := l.amount(itCutOffMarriedOne)
	inc, incID := l.amount(itBandIncreaseMax)
	lower := v.income.Min(v.spouseIncome)
	rule := fmt.Sprintf("married, two incomes: %s plus the lower of the maximum increase %s and the lower income %s", b.Money(), inc.Money(), lower.Money())
	return b.Add(inc.Min(lower)), []string{id, incID}, rule, v.income.Add(v.spouseIncome)
}

type credit struct {
	name, rule string
	amount     Decimal
	ids        []string
}

func ieCredits(l *lookup, v ieTaxInputs) []credit {
	var out []credit
	switch v.status {
	case "single":
		a, id := l.amount(itPersonalSingle)
		out = append(out, credit{"personalCredit", "single person credit", a, []string{id}})
	case "single_parent":
		a, id := l.amount(itPersonalSingle)
		out = append(out, credit{"personalCredit", "single person credit", a, []string{id}})
		b, id2 := l.amount(itChildCarerCredit)
		out = append(out, credit{"singlePersonChildCarerCredit", "single person child carer credit", b, []string{id2}})
	case "widowed":
		a, id := l.amount(itPersonalWidowed)
		out = append(out, credit{"personalCredit", "widowed person or surviving civil partner credit, without dependent children", a, []string{id}})
	default:
		a, id := l.amount(itPersonalMarried)
		out = append(out, credit{"personalCredit", "married person or civil partner credit", a, []string{id}})
	}

	standard, standardID := l.percent(itStandardRate)
	workCredit := func(name string, income Decimal, who string) {
		series, label := itEmployeeCredit, "employee (PAYE) credit"
		if !v.paye {
			series, label = itEarnedIncomeCredit, "earned income credit"
		}
		max, id := l.amount(series)
		limit := income.Percent(standard).Cents()
		amount := max.Min(limit)
		rule := fmt.Sprintf("%s%s: the lower of %s and %s × %s", label, who, max.Money(), income.Money(), pct(standard))
		out = append(out, credit{name, rule, amount, []string{id, standardID}})
	}
	workCredit("employeeCredit", v.income, "")
	if v.status == "married_two_incomes" {
		workCredit("spouseEmployeeCredit", v.spouseIncome, " of the spouse")
	}

	out = append(out, ieAgeCredit(l, v)...)
	return append(out, ieCappedCredits(l, v)...)
}

// ieAgeCredit is the age credit when the person (or, married, either
// spouse) has reached the age the credit's fact states.
func ieAgeCredit(l *lookup, v ieTaxInputs) []credit {
	married := strings.HasPrefix(v.status, "married")
	ageSeries := itAgeCreditSingle
	if married {
		ageSeries = itAgeCreditMarried
	}
	f, ok := l.p.FactOn(ageSeries, l.date)
	if !ok {
		if v.age > 0 || v.spouseAge > 0 {
			l.amount(ageSeries) // records the missing series
		}
		return nil
	}
	minAge, hasAge := FactNumber(f, "age")
	oldest := v.age
	if married && v.spouseAge > oldest {
		oldest = v.spouseAge
	}
	if !hasAge || Int(int64(oldest)).Cmp(minAge) < 0 {
		return nil
	}
	a, id := l.amount(ageSeries)
	return []credit{{"ageCredit", fmt.Sprintf("age credit from age %s", minAge), a, []string{id}}}
}

// ieCappedCredits are the claimed credits the dataset caps: rent and home
// carer, each at most the year's maximum.
func ieCappedCredits(l *lookup, v ieTaxInputs) []credit {
	var out []credit
	if amount, ok := v.extraCredits["rent"]; ok {
		series := itRentCreditSingle
		if strings.HasPrefix(v.status, "married") {
			series = itRentCreditMarried
		}
		max, id := l.amount(series)
		out = append(out, credit{"rentCredit", fmt.Sprintf("rent credit claimed %s, at most %s", amount.Money(), max.Money()), amount.Min(max), []string{id}})
	}
	if amount, ok := v.extraCredits["homeCarer"]; ok {
		max, id := l.amount(itHomeCarerCredit)
		out = append(out, credit{"homeCarerCredit", fmt.Sprintf("home carer credit claimed %s, at most %s", amount.Money(), max.Money()), amount.Min(max), []string{id}})
	}
	return out
}

func isCappedExtra(name string) bool { return name == "rent" || name == "homeCarer" }
