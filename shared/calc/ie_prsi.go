package calc

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Irish PRSI series (SOCIAL_WELFARE:IE:PRSI). Weekly thresholds are EUR a
// week; the Class S floor and minimum are EUR a year.
const (
	prsiAEmployee          = "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_A_EMPLOYEE"
	prsiAEmployeeThreshold = "SOCIAL_WELFARE:IE:PRSI:THRESHOLD:CLASS_A_EMPLOYEE_WEEKLY"
	prsiCredit             = "SOCIAL_WELFARE:IE:PRSI:RELIEF:PRSI_CREDIT"
	prsiAEmployerLower     = "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_A_EMPLOYER_LOWER"
	prsiAEmployerHigher    = "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_A_EMPLOYER_HIGHER"
	prsiAEmployerThreshold = "SOCIAL_WELFARE:IE:PRSI:THRESHOLD:CLASS_A_EMPLOYER_HIGHER_RATE_WEEKLY"
	prsiS                  = "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_S"
	prsiSMinimum           = "SOCIAL_WELFARE:IE:PRSI:THRESHOLD:CLASS_S_MINIMUM_CONTRIBUTION"
	prsiSFloor             = "SOCIAL_WELFARE:IE:PRSI:THRESHOLD:CLASS_S_INCOME_FLOOR"
	iePRSIDescription      = "x"

	PRSIDescription = "Irish PRSI for a pay period or a year: Class A employee PRSI less the tapered PRSI credit, and employer PRSI at the rate for the weekly earnings; Class S for the self-employed. Each pay date uses the rates in force on it; a year is 52 weekly payments."
)

var weeksPerMonth = Int(52).Div(Int(12))

// classASeries are the series a Class A pay period reads.
var classASeries = [...]string{prsiAEmployee, prsiAEmployeeThreshold, prsiCredit, prsiAEmployerLower, prsiAEmployerHigher, prsiAEmployerThreshold}

func init() { Register(iePRSI{}) }

// iePRSI follows DSP's practice: PRSI is charged per pay period, not
// cumulatively, on all reckonable earnings of the period once they pass the
// threshold. The employee charge is the rate on the earnings less the exact
// tapered credit, rounded once to the cent (half up), as DSP's table of
// charges between €352.01 and €424 does; the credit line is the charge it
// removed, so the lines add up. Employer PRSI is the rate on the earnings,
// to the cent. Monthly thresholds are the weekly ones × 52/12, unrounded.
type iePRSI struct{}

type iePRSIInputs struct {
	Class    string   `json:"class"`
	Earnings *Decimal `json:"earnings"`
	Period   string   `json:"period"`
}

func (iePRSI) Name() string         { return "ie_prsi" }
func (iePRSI) Jurisdiction() string { return "IE" }
func (iePRSI) Description() string  { return iePRSIDescription }

func (iePRSI) InputSchema() map[string]any {
	return objectSchema([]string{"earnings"}, map[string]any{
		"class":    enumSchema("PRSI class: A (employees, default) or S (self-employed, annual only).", "A", "S"),
		"earnings": moneySchema("Reckonable earnings of one period, EUR."),
		"period":   enumSchema("The period the earnings cover: weekly, monthly or annual (default annual; a year is 52 weekly payments).", "weekly", "monthly", "annual"),
	})
}

func (iePRSI) Series(string) []string {
	return []string{prsiAEmployee, prsiAEmployeeThreshold, prsiCredit, prsiAEmployerLower, prsiAEmployerHigher,
		prsiAEmployerThreshold, prsiS, prsiSMinimum, prsiSFloor}
}

type prsiInputs struct {
	class, period string
	earnings      Decimal
}

func (in iePRSIInputs) validate() (prsiInputs, error) {
	var out prsiInputs
	var err error
	if out.class, err = CheckChoice("class", in.Class, "A", "A", "S"); err != nil {
		return out, err
	}
	if out.period, err = CheckChoice("period", in.Period, "annual", "weekly", "monthly", "annual"); err != nil {
		return out, err
	}
	if out.earnings, err = CheckAmount("earnings", in.Earnings, true); err != nil {
		return out, err
	}
	if out.class == "S" && out.period != "annual" {
		return out, &FieldError{Field: "inputs.period", Message: "Class S is assessed on annual income: use annual"}
	}
	return out, nil
}

func (c iePRSI) Compute(p Params, raw json.RawMessage) (Result, error) {
	var in iePRSIInputs
	if err := DecodeInputs(raw, &in); err != nil {
		return Result{}, err
	}
	v, err := in.validate()
	if err != nil {
		return Result{}, err
	}
	var t trace
	employee, err := iePRSITrace(p, v, &t, "")
	if err != nil {
		return Result{}, err
	}
	return t.result("EUR", employee), nil
}

// iePRSITrace adds the PRSI lines and returns the employee's PRSI.
func iePRSITrace(p Params, v prsiInputs, t *trace, prefix string) (Decimal, error) {
	if v.class == "S" {
		return classSTrace(p, v.earnings, t, prefix)
	}
	switch v.period {
	case "weekly", "monthly":
		scale, unit := Int(1), "week"
		if v.period == "monthly" {
			scale, unit = weeksPerMonth, "month"
			t.assume("monthly thresholds are the weekly ones × 52/12, unrounded")
		}
		r, err := classAPeriod(p, p.Date, v.earnings, scale)
		if err != nil {
			return Decimal{}, err
		}
		t.add(prefix+"grossPrsi", r.gross, fmt.Sprintf("%s a %s × %s (pay date %s)%s", v.earnings.Money(), unit, pct(r.rate), p.Date, r.exempt), r.rateIDs...)
		t.add(prefix+"prsiCredit", r.credit, r.creditRule, r.creditIDs...)
		t.add(prefix+"employeePrsi", r.employee, "PRSI charge − PRSI credit", r.rateIDs...)
		if len(r.employerMissing) > 0 {
			t.warn("employer PRSI %s", r.employerRule)
		}
		t.add(prefix+"employerPrsi", r.employer, r.employerRule, r.employerIDs...)
		return r.employee, nil
	}
	return classAYear(p, v.earnings, t, prefix)
}

type periodPRSI struct {
	rate, gross, credit, employee, employer Decimal
	exempt, creditRule, employerRule        string
	employerMissing                         []string
	rateIDs, creditIDs, employerIDs         []string
}

// classAPeriod is Class A PRSI on one pay period's earnings at the rates in
// force on payDate; scale turns weekly thresholds into the period's.
func classAPeriod(p Params, payDate string, earnings, scale Decimal) (periodPRSI, error) {
	l := &lookup{p: p, date: payDate}
	var r periodPRSI
	rate, rateID := l.percent(prsiAEmployee)
	threshold, thresholdID := l.amount(prsiAEmployeeThreshold)
	creditMax, creditID := l.amount(prsiCredit)
	creditFact, _ := p.FactOn(prsiCredit, payDate)
	creditTop, hasTop := FactNumber(creditFact, "upper_amount")
	if err := l.err(); err != nil {
		return r, err
	}
	if !hasTop {
		return r, &MissingFactsError{Date: payDate, Series: []string{prsiCredit + " (upperAmount)"}}
	}
	threshold, creditMax, creditTop = threshold.Mul(scale), creditMax.Mul(scale), creditTop.Mul(scale)
	r.rate = rate
	r.rateIDs = []string{rateID, thresholdID}
	r.creditIDs = []string{creditID, thresholdID}
	cent := MustDecimal("0.01")
	if earnings.Cmp(threshold) <= 0 {
		r.exempt = fmt.Sprintf("; nil: earnings not above %s", threshold.Money())
		r.creditRule = "no PRSI charged, so no credit"
	} else {
		grossExact := earnings.Percent(rate)
		r.gross = grossExact.Cents()
		var creditExact Decimal
		if earnings.Cmp(creditTop) <= 0 {
			// The credit falls from its maximum at the first cent past the
			// threshold to nothing at the top: max/(top − threshold) per euro.
			taper := creditMax.Div(creditTop.Sub(threshold))
			creditExact = creditMax.Sub(earnings.Sub(threshold.Add(cent)).Mul(taper)).Clamp0().Min(grossExact)
			r.creditRule = fmt.Sprintf("%s − (%s − %s) × %s/(%s − %s), unrounded; shown as the charge it removes", creditMax.Money(), earnings.Money(), threshold.Add(cent).Money(), creditMax.Money(), creditTop.Money(), threshold.Money())
		} else {
			r.creditRule = fmt.Sprintf("no credit: earnings above %s", creditTop.Money())
		}
		// One rounding: the charge less the exact credit, to the cent (DSP's
		// table of charges between the threshold and the credit's top).
		r.employee = grossExact.Sub(creditExact).Cents()
		r.credit = r.gross.Sub(r.employee)
	}
	employerPRSI(p, payDate, earnings, scale, &r)
	return r, nil
}

// employerPRSI sets the employer's charge on the period's earnings: the
// lower rate up to the threshold, the higher rate on all earnings above it.
// It is reported beside the employee's; without its facts the employee
// figure still stands and the gap is named.
func employerPRSI(p Params, payDate string, earnings, scale Decimal, r *periodPRSI) {
	el := &lookup{p: p, date: payDate}
	lower, lowerID := el.percent(prsiAEmployerLower)
	higher, higherID := el.percent(prsiAEmployerHigher)
	threshold, thresholdID := el.amount(prsiAEmployerThreshold)
	r.employerMissing = el.missing
	if len(r.employerMissing) > 0 {
		r.employerRule = "not computed: the graph has no value on " + payDate + " for " + strings.Join(r.employerMissing, ", ")
		return
	}
	threshold = threshold.Mul(scale)
	rate, id := lower, lowerID
	r.employerRule = fmt.Sprintf("%s × %s (earnings not above %s)", earnings.Money(), pct(lower), threshold.Money())
	if earnings.Cmp(threshold) > 0 {
		rate, id = higher, higherID
		r.employerRule = fmt.Sprintf("%s × %s (earnings above %s)", earnings.Money(), pct(higher), threshold.Money())
	}
	r.employer = earnings.Percent(rate).Cents()
	r.employerIDs = []string{id, thresholdID}
}

// weekPayDate is the last day of tax week n (1..52) of the year starting
// on yearStart: the pay date the week's rates are taken on.
func weekPayDate(yearStart string, n int) string { return AddDays(yearStart, 7*n-1) }

// classAYear is a year's Class A PRSI as 52 equal weekly payments, each at
// the rates of its pay date; weeks with the same rates form one line.
func classAYear(p Params, annual Decimal, t *trace, prefix string) (Decimal, error) {
	start, _, err := TaxYearBounds(p.Date, "IE")
	if err != nil {
		return Decimal{}, err
	}
	weekly := annual.Div(Int(52)).Cents()
	if weekly.Mul(Int(52)).Cmp(annual) != 0 {
		t.warn("%s a year is not a whole number of cents a week: each weekly payment is %s", annual.Money(), weekly.Money())
	}
	t.assume("the year is 52 weekly payments of %s, week n paid on the last day of tax week n of %s", weekly.Money(), start[:4])
	var groups []weekRun
	var employee, credit, employer Decimal
	var ids, creditIDs, employerIDs, employerMissing []string
	// Weeks whose pay dates see the same facts have the same PRSI: compute
	// it once per run of such weeks.
	factKey := func(date string) (key [len(classASeries)]string) {
		for i, series := range classASeries {
			key[i] = p.factIDOn(series, date)
		}
		return key
	}
	var lastKey [len(classASeries)]string
	for n := 1; n <= 52; n++ {
		date := weekPayDate(start, n)
		key := factKey(date)
		if k := len(groups) - 1; k >= 0 && key == lastKey {
			groups[k].last, groups[k].to = n, date
			continue
		}
		r, err := classAPeriod(p, date, weekly, Int(1))
		if err != nil {
			return Decimal{}, err
		}
		lastKey = key
		groups = append(groups, weekRun{first: n, last: n, from: date, to: date, r: r})
		ids, creditIDs, employerIDs = appendNew(ids, r.rateIDs...), appendNew(creditIDs, r.creditIDs...), appendNew(employerIDs, r.employerIDs...)
		employerMissing = appendNew(employerMissing, r.employerMissing...)
	}
	for _, g := range groups {
		weeks := Int(int64(g.last - g.first + 1))
		employee, credit, employer = employee.Add(g.r.employee.Mul(weeks)), credit.Add(g.r.credit.Mul(weeks)), employer.Add(g.r.employer.Mul(weeks))
	}
	for _, g := range groups {
		g.lines(t, prefix)
	}
	if len(employerMissing) > 0 {
		t.warn("employer PRSI is left out for the weeks where the graph has no value for %s", strings.Join(employerMissing, ", "))
	}
	t.add(prefix+"prsiCredit", credit, "sum of the weekly PRSI credits", creditIDs...)
	t.add(prefix+"employerPrsi", employer, "sum of the weekly employer PRSI", employerIDs...)
	t.add(prefix+"employeePrsi", employee, "sum of the weekly employee PRSI", ids...)
	return employee, nil
}

// weekRun is a run of tax weeks whose pay dates see the same facts, so the
// same weekly PRSI.
type weekRun struct {
	first, last int
	from, to    string
	r           periodPRSI
}

// lines adds the run's employee and employer lines, with its weeks and pay
// dates.
func (g weekRun) lines(t *trace, prefix string) {
	weeks := Int(int64(g.last - g.first + 1))
	span := fmt.Sprintf("weeks %d–%d, paid %s to %s", g.first, g.last, g.from, g.to)
	t.add(fmt.Sprintf("%semployeePrsi weeks %d-%d", prefix, g.first, g.last), g.r.employee.Mul(weeks),
		fmt.Sprintf("%s × %s a week (%s at %s; credit %s a week)", weeks, g.r.employee.Money(), span, pct(g.r.rate), g.r.credit.Money()), g.r.rateIDs...)
	t.add(fmt.Sprintf("%semployerPrsi weeks %d-%d", prefix, g.first, g.last), g.r.employer.Mul(weeks),
		fmt.Sprintf("%s × %s a week (%s: %s)", weeks, g.r.employer.Money(), span, g.r.employerRule), g.r.employerIDs...)
}

// classSTrace is Class S PRSI on a year's income, as DSP and Revenue
// assess it: nothing below the floor; else, in a year with a change, the
// rate and the minimum contribution blended by the months each applied
// (4.025% and €537.50 for 2024), the charge rounded once to the cent.
func classSTrace(p Params, income Decimal, t *trace, prefix string) (Decimal, error) {
	start, _, err := TaxYearBounds(p.Date, "IE")
	if err != nil {
		return Decimal{}, err
	}
	l := &lookup{p: p, date: p.Date}
	floor, floorID := l.amount(prsiSFloor)
	if err := l.err(); err != nil {
		return Decimal{}, err
	}
	t.add(prefix+"prsiCredit", Decimal{}, "no PRSI credit in Class S")
	t.add(prefix+"employerPrsi", Decimal{}, "no employer in Class S")
	if income.Cmp(floor) < 0 {
		t.add(prefix+"employeePrsi", Decimal{}, fmt.Sprintf("Class S: income %s below %s", income.Money(), floor.Money()), floorID)
		return Decimal{}, nil
	}
	type span struct {
		months                int
		rate, minimum         Decimal
		rateID, minimumID, on string
	}
	var spans []span
	var rateSum, minimumSum Decimal
	for m := range 12 {
		on := fmt.Sprintf("%s-%02d-01", start[:4], m+1)
		ml := &lookup{p: p, date: on}
		rate, rateID := ml.percent(prsiS)
		minimum, minimumID := ml.amount(prsiSMinimum)
		if err := ml.err(); err != nil {
			return Decimal{}, err
		}
		rateSum, minimumSum = rateSum.Add(rate), minimumSum.Add(minimum)
		if k := len(spans) - 1; k >= 0 && spans[k].rateID == rateID && spans[k].minimumID == minimumID {
			spans[k].months++
			continue
		}
		spans = append(spans, span{months: 1, rate: rate, minimum: minimum, rateID: rateID, minimumID: minimumID, on: on})
	}
	twelve := Int(12)
	rate, minimum := rateSum.Div(twelve), minimumSum.Div(twelve)
	var ids []string
	for _, sp := range spans {
		share := Int(int64(sp.months)).Div(twelve)
		t.add(fmt.Sprintf("%sclassS %d months at %s", prefix, sp.months, pct(sp.rate)), income.Mul(share).Percent(sp.rate),
			fmt.Sprintf("%s × %d/12 × %s, minimum %s × %d/12 (from %s)", income.Money(), sp.months, pct(sp.rate), sp.minimum.Money(), sp.months, sp.on), sp.rateID, sp.minimumID)
		ids = appendNew(ids, sp.rateID, sp.minimumID)
	}
	charge := income.Percent(rate).Cents()
	rule := fmt.Sprintf("%s × %s", income.Money(), pct(rate))
	if len(spans) > 1 {
		rule = fmt.Sprintf("%s × %s (the rates blended by months)", income.Money(), pct(rate))
	}
	if floorMinimum := minimum.Cents(); charge.Cmp(floorMinimum) < 0 {
		charge, rule = floorMinimum, fmt.Sprintf("the minimum contribution %s, above %s", floorMinimum.Money(), rule)
	}
	t.add(prefix+"employeePrsi", charge, rule, append(ids, floorID)...)
	return charge, nil
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}
