package calc

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The Class 1 NI series: the rates, and each threshold per earnings period
// (HMRC's tables give weekly, monthly and annual figures that are not
// multiples of one another, so each is a series of its own).
const (
	ukNI             = "TAX:UK:NATIONAL_INSURANCE:"
	ukNIMainRate     = ukNI + "RATE:CLASS1_EMPLOYEE_MAIN"
	ukNIAdditional   = ukNI + "RATE:CLASS1_EMPLOYEE_ADDITIONAL"
	ukNIEmployerRate = ukNI + "RATE:CLASS1_EMPLOYER"
)

// ukNIPeriods maps the input period to the threshold series suffix.
var ukNIPeriods = map[string]string{"weekly": "_WEEKLY", "monthly": "_MONTHLY"}

func ukNIThreshold(name, period string) string {
	return ukNI + "THRESHOLD:" + name + ukNIPeriods[period]
}

// ukNI computes category A Class 1 contributions on one payment of
// earnings, at the rates and thresholds in force on its pay date.
//
// Period annual is twelve equal monthly payments, one paid on the last day
// of each tax month (the 5th), so a year with a mid-year change is split at
// it and the trace shows each part. (The annual earnings period of company
// directors is not computed.)
//
// Rounding: HMRC's exact percentage method: employee and employer
// contributions are worked out separately on each payment and rounded to
// the nearest penny, a halfpenny or less disregarded (SS(C)R 2001 reg 12,
// NIM11002); an annual figure is the sum of the rounded payments.
type ukNICalc struct{}

func init() { Register(ukNICalc{}) }

func (ukNICalc) Name() string         { return "uk_ni" }
func (ukNICalc) Jurisdiction() string { return "UK" }
func (ukNICalc) Description() string {
	return "UK Class 1 National Insurance (category A) on earnings paid weekly, monthly or annually (12 monthly payments), at the rates and thresholds of each pay date; headline employeeNi, line employerNi."
}

func (ukNICalc) InputSchema() map[string]any {
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"earnings"},
		"properties": map[string]any{
			"earnings": ukAmountSchema("gross earnings of one pay period (or of the year with period annual), GBP"),
			"period": map[string]any{"type": "string", "enum": []string{"weekly", "monthly", "annual"}, "default": "annual",
				"description": "the earnings period; annual is 12 equal monthly payments in the tax year"},
			"category": map[string]any{"type": "string", "enum": []string{"A"}, "default": "A",
				"description": "NI category letter; only A (most employees) is computed"},
		},
	}
}

func (ukNICalc) Series(string) []string {
	out := []string{ukNIMainRate, ukNIAdditional, ukNIEmployerRate}
	for _, period := range []string{"weekly", "monthly"} {
		for _, name := range []string{"LOWER_EARNINGS_LIMIT", "PRIMARY_THRESHOLD", "SECONDARY_THRESHOLD", "UPPER_EARNINGS_LIMIT"} {
			out = append(out, ukNIThreshold(name, period))
		}
	}
	return out
}

type ukNIInputs struct {
	Earnings *Decimal `json:"earnings"`
	Period   string   `json:"period"`
	Category string   `json:"category"`
}

// ukNIPayment is the contributions on one payment.
type ukNIPayment struct {
	employee, employer, main, additional Decimal
	mainRule, additionalRule, erRule     string
	mainIDs, additionalIDs, erIDs        []string
	belowLEL                             bool
}

func (ukNICalc) Compute(p Params, raw json.RawMessage) (Result, error) {
	var in ukNIInputs
	if err := DecodeInputs(raw, &in); err != nil {
		return Result{}, err
	}
	earnings, err := CheckAmount("earnings", in.Earnings, true)
	if err != nil {
		return Result{}, err
	}
	period, err := CheckChoice("period", in.Period, "annual", "weekly", "monthly", "annual")
	if err != nil {
		return Result{}, err
	}
	if _, err := CheckChoice("category", in.Category, "A", "A"); err != nil {
		return Result{}, err
	}
	if period == "annual" {
		return ukNIAnnual(p, earnings)
	}
	pay, err := ukNIOnPayment(p, earnings, period, p.Date)
	if err != nil {
		return Result{}, err
	}
	res := Result{Currency: "GBP", Total: pay.employee.Money()}
	res.Lines = []Line{
		{Name: "employeeNiMainRate", Amount: pay.main.Money(), Rule: pay.mainRule, FactIDs: pay.mainIDs},
		{Name: "employeeNiAdditionalRate", Amount: pay.additional.Money(), Rule: pay.additionalRule, FactIDs: pay.additionalIDs},
		{Name: "employeeNi", Amount: pay.employee.Money(), Rule: "main plus additional rate, rounded to the nearest penny (a halfpenny or less disregarded)", FactIDs: []string{}},
		{Name: "employerNi", Amount: pay.employer.Money(), Rule: pay.erRule + ", rounded the same way", FactIDs: pay.erIDs},
	}
	res.Assumptions = []string{fmt.Sprintf("one %s payment of %s paid on %s, NI category A", period, ukPounds(earnings), p.Date)}
	if pay.belowLEL {
		res.Warnings = append(res.Warnings, "earnings below the Lower Earnings Limit do not count towards the State Pension or contributory benefits")
	}
	return res, nil
}

// ukNIPart is a run of monthly payments charged alike.
type ukNIPart struct {
	from, to, key string
	months        int
	pay           ukNIPayment
	earnings      Decimal
}

// ukNIAnnual charges a year's earnings as twelve equal monthly payments
// (the last penny of an odd division goes to the last month, so the
// year's earnings are exact), each at its pay date's values.
func ukNIAnnual(p Params, earnings Decimal) (Result, error) {
	start, end, err := TaxYearBounds(p.Date, "UK")
	if err != nil {
		return Result{}, &FieldError{Field: "asOf", Message: err.Error()}
	}
	monthly := earnings.Div(Int(12)).Round(2, Down)
	var employee, employer Decimal
	var parts []ukNIPart
	for m := 1; m <= 12; m++ {
		payDate, amount := ukTaxMonthEnd(start, m), monthly
		if m == 12 {
			amount = earnings.Sub(monthly.Mul(Int(11)))
		}
		pay, err := ukNIOnPayment(p, amount, "monthly", payDate)
		if err != nil {
			return Result{}, err
		}
		employee, employer = employee.Add(pay.employee), employer.Add(pay.employer)
		key := fmt.Sprint(pay.mainIDs, pay.additionalIDs, pay.erIDs)
		if n := len(parts); n > 0 && parts[n-1].key == key && parts[n-1].earnings.Cmp(amount) == 0 {
			parts[n-1].months++
			parts[n-1].to = payDate
			continue
		}
		parts = append(parts, ukNIPart{from: payDate, to: payDate, key: key, months: 1, pay: pay, earnings: amount})
	}
	res := Result{Currency: "GBP", Total: employee.Money(), Lines: ukNIPartLines(parts)}
	res.Lines = append(res.Lines,
		Line{Name: "employeeNi", Amount: employee.Money(), Rule: "sum of the monthly payments' employee contributions, each rounded to the nearest penny (a halfpenny or less disregarded)", FactIDs: []string{}},
		Line{Name: "employerNi", Amount: employer.Money(), Rule: "sum of the monthly payments' employer contributions, rounded the same way", FactIDs: []string{}},
	)
	res.Assumptions = []string{
		fmt.Sprintf("annual earnings of %s paid as 12 equal monthly payments in the tax year %s to %s, each on the 5th (the end of the tax month)", ukPounds(earnings), start, end),
		"NI category A; not a company director using the annual earnings period",
	}
	if len(parts) > 1 {
		res.Warnings = append(res.Warnings, "rates or thresholds changed during the tax year: each payment is charged at those in force on its pay date")
	}
	return res, nil
}

// ukNIPartLines are the trace of each run of payments: employee and employer.
func ukNIPartLines(parts []ukNIPart) []Line {
	var lines []Line
	for _, pt := range parts {
		when := fmt.Sprintf("%d monthly payment(s) of %s paid %s to %s", pt.months, ukPounds(pt.earnings), pt.from, pt.to)
		lines = append(lines,
			Line{Name: "employeeNiPeriod", Amount: pt.pay.employee.Mul(Int(int64(pt.months))).Money(),
				Rule:    fmt.Sprintf("%s: %s each (%s; %s)", when, ukPounds(pt.pay.employee), pt.pay.mainRule, pt.pay.additionalRule),
				FactIDs: append(append([]string{}, pt.pay.mainIDs...), pt.pay.additionalIDs...)},
			Line{Name: "employerNiPeriod", Amount: pt.pay.employer.Mul(Int(int64(pt.months))).Money(),
				Rule: fmt.Sprintf("%s: %s each (%s)", when, ukPounds(pt.pay.employer), pt.pay.erRule), FactIDs: pt.pay.erIDs},
		)
	}
	return lines
}

// ukTaxMonthEnd is the last day (the 5th of the next calendar month) of tax
// month m (1-12) of the tax year starting on start (YYYY-04-06).
func ukTaxMonthEnd(start string, m int) string {
	year, _ := strconv.Atoi(start[:4])
	month := 4 + m // tax month 1 ends on 5 May
	if month > 12 {
		month -= 12
		year++
	}
	return fmt.Sprintf("%04d-%02d-05", year, month)
}

// ukNIOnPayment computes one payment's contributions with the values in
// force on payDate.
func ukNIOnPayment(p Params, earnings Decimal, period, payDate string) (ukNIPayment, error) {
	pt, lel, st, uel := ukNIThreshold("PRIMARY_THRESHOLD", period), ukNIThreshold("LOWER_EARNINGS_LIMIT", period),
		ukNIThreshold("SECONDARY_THRESHOLD", period), ukNIThreshold("UPPER_EARNINGS_LIMIT", period)
	if err := p.Require(payDate, ukNIMainRate, ukNIAdditional, ukNIEmployerRate, pt, st, uel, lel); err != nil {
		return ukNIPayment{}, err
	}
	main, mainID, _ := p.PercentOn(ukNIMainRate, payDate)
	add, addID, _ := p.PercentOn(ukNIAdditional, payDate)
	er, erID, _ := p.PercentOn(ukNIEmployerRate, payDate)
	ptV, ptID, _ := p.AmountOn(pt, payDate)
	stV, stID, _ := p.AmountOn(st, payDate)
	uelV, uelID, _ := p.AmountOn(uel, payDate)
	lelV, _, _ := p.AmountOn(lel, payDate)

	var out ukNIPayment
	mainBase := earnings.Min(uelV).Sub(ptV).Clamp0()
	addBase := earnings.Sub(uelV).Clamp0()
	out.main = mainBase.Percent(main)
	out.additional = addBase.Percent(add)
	out.employee = roundNI(out.main.Add(out.additional))
	out.employer = roundNI(earnings.Sub(stV).Clamp0().Percent(er))
	out.mainRule = fmt.Sprintf("%s%% of %s between the Primary Threshold %s and the Upper Earnings Limit %s", main, ukPounds(mainBase), ukPounds(ptV), ukPounds(uelV))
	out.additionalRule = fmt.Sprintf("%s%% of %s above the Upper Earnings Limit", add, ukPounds(addBase))
	out.erRule = fmt.Sprintf("%s%% of earnings above the Secondary Threshold %s", er, ukPounds(stV))
	out.mainIDs = []string{mainID, ptID, uelID}
	out.additionalIDs = []string{addID, uelID}
	out.erIDs = []string{erID, stID}
	out.belowLEL = earnings.Cmp(lelV) < 0
	return out, nil
}
