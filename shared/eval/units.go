package eval

import (
	"regexp"
	"strings"
)

// unit is a value's kind: a percentage, or an amount in a currency per a
// period or unit ("" for a plain amount).
type unit struct {
	percent  bool
	currency string
	per      string
}

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// parseUnit reads a unit as the key writes it ("%", "percent", "EUR",
// "EUR per week", "EUR per tonne CO2") or as a citation carries it ("%",
// "EUR/week", "EUR/tonne_co2").
func parseUnit(s string) (unit, bool) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "%", "percent":
		return unit{percent: true}, true
	case "":
		return unit{}, false
	}
	currency, per, _ := strings.Cut(s, "/")
	if c, p, ok := strings.Cut(s, " per "); ok {
		currency, per = c, p
	}
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if !currencyPattern.MatchString(currency) {
		return unit{}, false
	}
	per = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(per)), " ", "_")
	return unit{currency: currency, per: per}, true
}

func validUnit(s string) bool { _, ok := parseUnit(s); return ok }

// unitsMatch reports whether a cited unit is the key's: the same kind and
// currency, and the same period, where a plain amount in the key (a
// threshold, a credit) matches a plain or yearly amount.
func unitsMatch(key, cited string) bool {
	k, ok1 := parseUnit(key)
	c, ok2 := parseUnit(cited)
	if !ok1 || !ok2 || k.percent != c.percent {
		return false
	}
	if k.percent {
		return true
	}
	if k.currency != c.currency {
		return false
	}
	if k.per == "" {
		return c.per == "" || c.per == "year"
	}
	return k.per == c.per
}

// factValue is a stored fact's number and unit, read as the chat's
// citations read them: a percent ("%"), else an amount in its currency per
// its period or unit.
func factValue(props map[string]any) (*float64, string) {
	if v, ok := number(props["percent"]); ok {
		return &v, "%"
	}
	for _, key := range []string{"amount", "value"} {
		v, ok := number(props[key])
		if !ok {
			continue
		}
		currency, _ := props["currency"].(string)
		per, _ := props["period"].(string)
		if per == "" {
			per, _ = props["unit"].(string)
		}
		switch {
		case currency == "":
			return &v, per
		case per == "":
			return &v, currency
		}
		return &v, currency + "/" + per
	}
	return nil, ""
}

// number reads a stored number: JSON gives float64, Bolt int64 or float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}
