package calc

import (
	"encoding/json"
	"fmt"
)

// Irish Vehicle Registration Tax series (TAX:IE:VRT), category A cars.
// CO2 bands: percent of the OMSP, lowerAmount/upperAmount in g/km (a band
// takes emissions above its lower bound up to and including its upper).
// NOx bands: amount in EUR per mg/km for the mg/km within the band.
const (
	vrtCO2Prefix      = "TAX:IE:VRT:RATE:CO2_"
	vrtNOxPrefix      = "TAX:IE:VRT:RATE:NOX_"
	ieVRTDescription  = "Irish Vehicle Registration Tax on a category A car: the CO2 band's percent of the open market selling price, plus the NOx charge per mg/km in each NOx band."
	vrtMaxEmission    = 10000
	vrtCategoryA      = "A"
	vrtCO2AppliesToA  = "category_a"
	vrtMinimumWarning = "the minimum VRT charge is not in the graph and is not applied"
)

func init() { Register(ieVRT{}) }

// ieVRT: each charge to the cent, half up (Revenue's VRT calculator shows
// euro and cents).
type ieVRT struct{}

type ieVRTInputs struct {
	OMSP     *Decimal `json:"omsp"`
	CO2      *Decimal `json:"co2"`
	NOx      *Decimal `json:"nox"`
	Category string   `json:"category"`
	Date     string   `json:"date"`
}

func (ieVRT) Name() string         { return "ie_vrt" }
func (ieVRT) Jurisdiction() string { return "IE" }
func (ieVRT) Description() string  { return ieVRTDescription }

func (ieVRT) InputSchema() map[string]any {
	return objectSchema([]string{"omsp", "co2", "nox"}, map[string]any{
		"omsp":     moneySchema("Open market selling price, EUR."),
		"co2":      numberSchema("CO2 emissions, WLTP, g/km."),
		"nox":      numberSchema("NOx emissions, mg/km."),
		"category": enumSchema("Vehicle category: A (passenger cars), the default.", vrtCategoryA),
		"date":     dateSchema("The registration date (defaults to the request's date)."),
	})
}

func (ieVRT) Series(string) []string { return []string{vrtCO2Prefix + "*", vrtNOxPrefix + "*"} }

// InputDate is the registration date when the request names none.
func (ieVRT) InputDate(raw json.RawMessage) (string, bool, error) { return inputDate(raw) }

func checkEmission(field string, d *Decimal) (Decimal, error) {
	if d == nil {
		return Decimal{}, &FieldError{Field: "inputs." + field, Message: "is required"}
	}
	if d.Sign() < 0 || d.Cmp(Int(vrtMaxEmission)) > 0 {
		return Decimal{}, &FieldError{Field: "inputs." + field, Message: fmt.Sprintf("must be between 0 and %d", vrtMaxEmission)}
	}
	return *d, nil
}

func (c ieVRT) Compute(p Params, raw json.RawMessage) (Result, error) {
	var in ieVRTInputs
	if err := DecodeInputs(raw, &in); err != nil {
		return Result{}, err
	}
	if err := checkInputDate(in.Date, p.Date); err != nil {
		return Result{}, err
	}
	if _, err := CheckChoice("category", in.Category, vrtCategoryA, vrtCategoryA); err != nil {
		return Result{}, err
	}
	omsp, err := CheckAmount("omsp", in.OMSP, true)
	if err != nil {
		return Result{}, err
	}
	co2, err := checkEmission("co2", in.CO2)
	if err != nil {
		return Result{}, err
	}
	nox, err := checkEmission("nox", in.NOx)
	if err != nil {
		return Result{}, err
	}
	var t trace
	co2Charge, missing := vrtCO2Charge(p, omsp, co2, &t)
	noxCharge, noxIDs, noxMissing := vrtNOxCharge(p, nox, &t)
	missing = append(missing, noxMissing...)
	if len(missing) > 0 {
		return Result{}, &MissingFactsError{Date: p.Date, Series: missing}
	}
	t.add("noxCharge", noxCharge, fmt.Sprintf("NOx %s mg/km: sum of its bands", nox), noxIDs...)
	vrt := co2Charge.Add(noxCharge)
	t.add("vrt", vrt, "CO2 charge + NOx charge")
	t.warn(vrtMinimumWarning)
	t.assume("a new category A car: no relief for electric or hybrid vehicles, no used-import depreciation")
	return t.result("EUR", vrt), nil
}

// vrtCO2Charge is the CO2 band's percent of the OMSP: the one category A
// band whose bounds hold the emissions (above the lower, up to the upper).
func vrtCO2Charge(p Params, omsp, co2 Decimal, t *trace) (Decimal, []string) {
	for _, f := range p.WithPrefix(vrtCO2Prefix, p.Date) {
		if applies, _ := f.Properties["applies_to"].(string); applies != "" && applies != vrtCO2AppliesToA {
			continue
		}
		lower, ok1 := FactNumber(f, "lower_amount")
		upper, ok2 := FactNumber(f, "upper_amount")
		rate, ok3 := FactNumber(f, "percent")
		if !ok1 || !ok3 {
			continue
		}
		inBand := (co2.Cmp(lower) > 0 || (lower.IsZero() && co2.IsZero())) && (!ok2 || co2.Cmp(upper) <= 0)
		if !inBand {
			continue
		}
		charge := omsp.Percent(rate).Cents()
		bounds := fmt.Sprintf("above %s g/km", lower)
		if ok2 {
			bounds += fmt.Sprintf(" up to %s g/km", upper)
		}
		t.add("co2Charge", charge, fmt.Sprintf("%s × %s (CO2 %s g/km, band %s)", omsp.Money(), pct(rate), co2, bounds), f.NodeID)
		return charge, nil
	}
	return Decimal{}, []string{fmt.Sprintf("%s* (a band for %s g/km)", vrtCO2Prefix, co2)}
}

// vrtNOxCharge is the NOx charge: for each NOx band, the mg/km of the
// emissions within it times its amount per mg/km.
func vrtNOxCharge(p Params, nox Decimal, t *trace) (Decimal, []string, []string) {
	facts := p.WithPrefix(vrtNOxPrefix, p.Date)
	if len(facts) == 0 {
		return Decimal{}, nil, []string{vrtNOxPrefix + "*"}
	}
	var charge Decimal
	var ids, missing []string
	for _, f := range facts {
		lower, ok1 := FactNumber(f, "lower_amount")
		upper, ok2 := FactNumber(f, "upper_amount")
		perUnit, ok3 := FactNumber(f, "amount")
		if !ok1 || !ok3 {
			missing = append(missing, f.Series+" (lowerAmount, amount)")
			continue
		}
		top := nox
		if ok2 {
			top = nox.Min(upper)
		}
		within := top.Sub(lower).Clamp0()
		if within.IsZero() {
			continue
		}
		part := within.Mul(perUnit).Cents()
		charge = charge.Add(part)
		ids = append(ids, f.NodeID)
		t.add("noxCharge "+f.Series[len(vrtNOxPrefix):], part, fmt.Sprintf("%s mg/km × %s per mg/km (from %s mg/km)", within, perUnit.Money(), lower), f.NodeID)
	}
	return charge, ids, missing
}
