package calc

import (
	"encoding/json"
	"fmt"
)

// The UK income tax series: the Personal Allowance and its taper, the rUK
// bands (limits as taxable income above the allowance) and the Scottish
// bands (the same, as HMRC's PAYE tables give them).
const (
	ukIT               = "TAX:UK:INCOME_TAX:"
	ukScot             = "TAX:UK:SCOTTISH_INCOME_TAX:"
	ukPersonalAllow    = ukIT + "THRESHOLD:PERSONAL_ALLOWANCE"
	ukAllowanceLimit   = ukIT + "THRESHOLD:PERSONAL_ALLOWANCE_INCOME_LIMIT"
	ukAllowanceTaper   = ukIT + "RATE:PERSONAL_ALLOWANCE_TAPER"
	ukBasicRateLimit   = ukIT + "THRESHOLD:BASIC_RATE_LIMIT"
	ukAdditionalThresh = ukIT + "THRESHOLD:ADDITIONAL_RATE_THRESHOLD"
)

// ukBand is one rate band: its rate series and the series of its upper
// limit ("" for the top band, which has none).
type ukBand struct {
	line, rate, limit string
	optional          bool // a band that exists only in some years (Scottish advanced)
}

var ukRUKBands = []ukBand{
	{line: "basicRate", rate: ukIT + "RATE:BASIC", limit: ukBasicRateLimit},
	{line: "higherRate", rate: ukIT + "RATE:HIGHER", limit: ukAdditionalThresh},
	{line: "additionalRate", rate: ukIT + "RATE:ADDITIONAL"},
}

var ukScottishBands = []ukBand{
	{line: "starterRate", rate: ukScot + "RATE:STARTER", limit: ukScot + "THRESHOLD:STARTER_LIMIT"},
	{line: "basicRate", rate: ukScot + "RATE:BASIC", limit: ukScot + "THRESHOLD:BASIC_LIMIT"},
	{line: "intermediateRate", rate: ukScot + "RATE:INTERMEDIATE", limit: ukScot + "THRESHOLD:INTERMEDIATE_LIMIT"},
	{line: "higherRate", rate: ukScot + "RATE:HIGHER", limit: ukScot + "THRESHOLD:HIGHER_LIMIT"},
	{line: "advancedRate", rate: ukScot + "RATE:ADVANCED", limit: ukScot + "THRESHOLD:ADVANCED_LIMIT", optional: true},
	{line: "topRate", rate: ukScot + "RATE:TOP"},
}

// ukIncomeTax computes a year's income tax on non-savings, non-dividend
// income, for rUK or Scottish taxpayers.
//
// Rounding: income is taken exactly (pence allowed); the allowance taper
// takes exactly half the income over the limit (ITA 2007 s35); each band's
// tax is rounded down to the penny and incomeTax is their sum. With whole
// pounds of income every band's tax is already exact in pence.
type ukIncomeTax struct{}

func init() { Register(ukIncomeTax{}) }

func (ukIncomeTax) Name() string         { return "uk_income_tax" }
func (ukIncomeTax) Jurisdiction() string { return "UK" }
func (ukIncomeTax) Description() string {
	return "UK income tax for a tax year on one person's non-savings income (rUK or Scottish bands), with the Personal Allowance taper; a line per band, headline incomeTax."
}

func (ukIncomeTax) InputSchema() map[string]any {
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"income"},
		"properties": map[string]any{
			"income": ukAmountSchema("annual gross non-savings, non-dividend income (employment, pension, self-employment), GBP"),
			"region": map[string]any{"type": "string", "enum": []string{"rUK", "scotland"}, "default": "rUK",
				"description": "rUK (England, Wales, Northern Ireland) or scotland (a Scottish taxpayer)"},
		},
	}
}

func (ukIncomeTax) Series(string) []string {
	out := []string{ukPersonalAllow, ukAllowanceLimit, ukAllowanceTaper}
	for _, b := range append(append([]ukBand{}, ukRUKBands...), ukScottishBands...) {
		out = append(out, b.rate)
		if b.limit != "" {
			out = append(out, b.limit)
		}
	}
	return out
}

type ukIncomeTaxInputs struct {
	Income *Decimal `json:"income"`
	Region string   `json:"region"`
}

func (ukIncomeTax) Compute(p Params, raw json.RawMessage) (Result, error) {
	income, region, err := ukIncomeTaxDecode(raw)
	if err != nil {
		return Result{}, err
	}
	// Income tax is charged for the tax year; its values change only on 6 April.
	start, end, err := TaxYearBounds(p.Date, "UK")
	if err != nil {
		return Result{}, &FieldError{Field: "asOf", Message: err.Error()}
	}
	bands := ukRUKBands
	if region == "scotland" {
		bands = ukScottishBands
	}
	if err := p.Require(start, ukRequiredSeries(bands)...); err != nil {
		return Result{}, err
	}
	pa, paID, _ := p.AmountOn(ukPersonalAllow, start)
	limit, limitID, _ := p.AmountOn(ukAllowanceLimit, start)
	taper, taperID, _ := p.PercentOn(ukAllowanceTaper, start)

	allowance := pa.Sub(income.Sub(limit).Clamp0().Percent(taper)).Clamp0()
	taxable := income.Sub(allowance).Clamp0()
	res := Result{Currency: "GBP"}
	res.Lines = append(res.Lines,
		Line{Name: "income", Amount: income.Money(), Rule: "annual non-savings, non-dividend income", FactIDs: []string{}},
		Line{Name: "personalAllowance", Amount: allowance.Money(),
			Rule:    fmt.Sprintf("standard allowance %s, less %s%% of income over %s", ukPounds(pa), taper, ukPounds(limit)),
			FactIDs: []string{paID, limitID, taperID}},
		Line{Name: "taxableIncome", Amount: taxable.Money(), Rule: "income less the Personal Allowance", FactIDs: []string{}},
	)
	bandLines, total, err := ukBandsTax(p, bands, taxable, start)
	if err != nil {
		return Result{}, err
	}
	res.Lines = append(append(res.Lines, bandLines...), Line{Name: "incomeTax", Amount: total.Money(),
		Rule: "sum of the bands, each rounded down to the penny", FactIDs: []string{}})
	res.Total = total.Money()
	res.Assumptions = ukIncomeTaxAssumptions(region, start, end)
	if allowance.Cmp(pa) < 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("income over %s reduces the Personal Allowance to %s", ukPounds(limit), ukPounds(allowance)))
	}
	return res, nil
}

func ukIncomeTaxDecode(raw json.RawMessage) (Decimal, string, error) {
	var in ukIncomeTaxInputs
	if err := DecodeInputs(raw, &in); err != nil {
		return Decimal{}, "", err
	}
	income, err := CheckAmount("income", in.Income, true)
	if err != nil {
		return Decimal{}, "", err
	}
	region, err := CheckChoice("region", in.Region, "rUK", "rUK", "scotland")
	return income, region, err
}

// ukRequiredSeries are the series a year must have for bands (an optional
// band is charged only in the years that have it).
func ukRequiredSeries(bands []ukBand) []string {
	required := []string{ukPersonalAllow, ukAllowanceLimit, ukAllowanceTaper}
	for _, b := range bands {
		if b.optional {
			continue
		}
		required = append(required, b.rate)
		if b.limit != "" {
			required = append(required, b.limit)
		}
	}
	return required
}

// ukBandsTax charges taxable income band by band: a line per band, each
// rounded down to the penny, and their sum.
func ukBandsTax(p Params, bands []ukBand, taxable Decimal, start string) ([]Line, Decimal, error) {
	var lines []Line
	total, lower := Decimal{}, Decimal{}
	for _, b := range bands {
		if _, ok := p.FactOn(b.rate, start); b.optional && !ok {
			continue
		}
		rate, rateID, err := p.PercentOn(b.rate, start)
		if err != nil {
			return nil, Decimal{}, err
		}
		ids := []string{rateID}
		upper, hasUpper := Decimal{}, b.limit != ""
		if hasUpper {
			var limitID string
			if upper, limitID, err = p.AmountOn(b.limit, start); err != nil {
				return nil, Decimal{}, err
			}
			ids = append(ids, limitID)
		}
		slice := taxable.Sub(lower).Clamp0()
		rule := fmt.Sprintf("%s%% of taxable income over %s", rate, ukPounds(lower))
		if hasUpper {
			slice = slice.Min(upper.Sub(lower).Clamp0())
			rule = fmt.Sprintf("%s%% of taxable income from %s to %s", rate, ukPounds(lower), ukPounds(upper))
			lower = upper.Max(lower)
		}
		tax := slice.Percent(rate).Round(2, Down)
		total = total.Add(tax)
		lines = append(lines, Line{Name: b.line, Amount: tax.Money(),
			Rule: fmt.Sprintf("%s (%s taxed)", rule, ukPounds(slice)), FactIDs: ids})
	}
	return lines, total, nil
}

func ukIncomeTaxAssumptions(region, start, end string) []string {
	regionText := "England, Wales or Northern Ireland (rUK bands)"
	if region == "scotland" {
		regionText = "a Scottish taxpayer (Scottish bands on non-savings income)"
	}
	return []string{
		fmt.Sprintf("tax year %s to %s; all income is non-savings, non-dividend income of one person", start, end),
		"resident in " + regionText,
		"standard Personal Allowance: no Marriage or Blind Person's Allowance, and no pension contributions or Gift Aid extending the bands",
	}
}
