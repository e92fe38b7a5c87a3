package calc

import (
	"encoding/json"
	"fmt"
)

const ieNetPayDescription = "Irish annual net pay: gross income less income tax, USC and PRSI, with benefit in kind added to the income they are charged on but not to the cash paid."

func init() { Register(ieNetPay{}) }

// ieNetPay composes the income tax, USC and PRSI calculators on the same
// year: each keeps its own rounding; the net pay is exact from their lines.
type ieNetPay struct{}

type ieNetPayInputs struct {
	Status        string             `json:"status"`
	Income        *Decimal           `json:"income"`
	SpouseIncome  *Decimal           `json:"spouseIncome"`
	Paye          *bool              `json:"paye"`
	Age           *wholeNumber       `json:"age"`
	SpouseAge     *wholeNumber       `json:"spouseAge"`
	ExtraCredits  map[string]Decimal `json:"extraCredits"`
	MedicalCard   *bool              `json:"medicalCard"`
	Class         string             `json:"class"`
	Earnings      *Decimal           `json:"earnings"`
	Period        string             `json:"period"`
	BenefitInKind *Decimal           `json:"benefitInKind"`
}

func (ieNetPay) Name() string         { return "ie_net_pay" }
func (ieNetPay) Jurisdiction() string { return "IE" }
func (ieNetPay) Description() string  { return ieNetPayDescription }

func (ieNetPay) InputSchema() map[string]any {
	tax := ieIncomeTax{}.InputSchema()["properties"].(map[string]any)
	usc := ieUSC{}.InputSchema()["properties"].(map[string]any)
	prsi := iePRSI{}.InputSchema()["properties"].(map[string]any)
	props := map[string]any{}
	for _, m := range []map[string]any{tax, usc, prsi} {
		for k, v := range m {
			props[k] = v
		}
	}
	props["income"] = moneySchema("Annual gross pay of the person, EUR (or give earnings with period).")
	props["earnings"] = moneySchema("Gross pay of one period, EUR, instead of income: annualised as 52 weeks or 12 months.")
	props["benefitInKind"] = moneySchema("Annual taxable benefit in kind, EUR: charged to income tax, USC and PRSI, not paid in cash.")
	return objectSchema([]string{"status"}, props)
}

func (ieNetPay) Series(date string) []string {
	var out []string
	out = append(out, ieIncomeTax{}.Series(date)...)
	out = append(out, ieUSC{}.Series(date)...)
	return append(out, iePRSI{}.Series(date)...)
}

func (c ieNetPay) Compute(p Params, raw json.RawMessage) (Result, error) {
	var in ieNetPayInputs
	if err := DecodeInputs(raw, &in); err != nil {
		return Result{}, err
	}
	var t trace
	income, err := netPayIncome(in, &t)
	if err != nil {
		return Result{}, err
	}
	bik, err := CheckAmount("benefitInKind", in.BenefitInKind, false)
	if err != nil {
		return Result{}, err
	}
	taxIn := ieIncomeTaxInputs{Status: in.Status, Income: income, SpouseIncome: in.SpouseIncome, Paye: in.Paye,
		Age: in.Age, SpouseAge: in.SpouseAge, ExtraCredits: in.ExtraCredits}
	// Earnings were checked as given; a year of them may pass the bound
	// on a single amount (52 weeks of the largest weekly pay).
	annualised := in.Earnings != nil
	if annualised {
		zero := Int(0)
		taxIn.Income = &zero
	}
	v, err := taxIn.validate()
	if err != nil {
		return Result{}, err
	}
	if annualised {
		v.income = *income
	}
	class, err := CheckChoice("class", in.Class, "A", "A", "S")
	if err != nil {
		return Result{}, err
	}
	if !v.paye && in.Class == "" {
		class = "S"
	}
	cash := v.income.Add(v.spouseIncome)
	v.income = v.income.Add(bik)
	if !bik.IsZero() {
		t.assume("benefit in kind %s is added to the person's income for income tax, USC and PRSI", bik.Money())
	}
	tax, usc, prsi, err := netPayDeductions(p, v, class, in.MedicalCard != nil && *in.MedicalCard, &t)
	if err != nil {
		return Result{}, err
	}
	t.add("incomeTax", tax, "income tax payable")
	t.add("usc", usc, "Universal Social Charge")
	t.add("prsi", prsi, fmt.Sprintf("employee PRSI, Class %s", class))
	deductions := tax.Add(usc).Add(prsi)
	t.add("totalDeductions", deductions, "income tax + USC + PRSI")
	net := cash.Sub(deductions)
	t.add("netPay", net, fmt.Sprintf("gross pay %s − deductions", cash.Money()))
	return t.result("EUR", net), nil
}

// netPayIncome is the annual gross pay: income as given, or earnings of a
// period annualised (52 weeks, 12 months).
func netPayIncome(in ieNetPayInputs, t *trace) (*Decimal, error) {
	if in.Earnings == nil {
		if in.Period != "" && in.Period != "annual" {
			return nil, &FieldError{Field: "inputs.period", Message: "applies only with earnings; income is annual"}
		}
		return in.Income, nil
	}
	if in.Income != nil {
		return nil, &FieldError{Field: "inputs.earnings", Message: "give income or earnings with period, not both"}
	}
	e, err := CheckAmount("earnings", in.Earnings, true)
	if err != nil {
		return nil, err
	}
	period, err := CheckChoice("period", in.Period, "", "weekly", "monthly", "annual")
	if err != nil {
		return nil, err
	}
	annual := map[string]Decimal{"weekly": e.Mul(Int(52)), "monthly": e.Mul(Int(12)), "annual": e}[period]
	t.assume("annual pay %s from %s %s", annual.Money(), e.Money(), period)
	return &annual, nil
}

// netPayDeductions adds the income tax, USC and PRSI traces (each with its
// prefix) and returns the three amounts; a couple's USC and PRSI are each
// spouse's own.
func netPayDeductions(p Params, v ieTaxInputs, class string, medical bool, t *trace) (tax, usc, prsi Decimal, err error) {
	if tax, err = ieIncomeTaxTrace(p, v, t, "incomeTax."); err != nil {
		return
	}
	if usc, err = ieUSCTrace(p, v.income, v.age, medical, t, "usc."); err != nil {
		return
	}
	if prsi, err = iePRSITrace(p, prsiInputs{class: class, period: "annual", earnings: v.income}, t, "prsi."); err != nil {
		return
	}
	if v.status != "married_two_incomes" {
		return
	}
	spouseUSC, err := ieUSCTrace(p, v.spouseIncome, v.spouseAge, false, t, "spouseUsc.")
	if err != nil {
		return
	}
	spousePRSI, err := iePRSITrace(p, prsiInputs{class: class, period: "annual", earnings: v.spouseIncome}, t, "spousePrsi.")
	if err != nil {
		return
	}
	t.assume("net pay is the couple's: USC and PRSI are charged on each spouse's own income, in the same PRSI class")
	return tax, usc.Add(spouseUSC), prsi.Add(spousePRSI), nil
}
