package calc

import "strings"

// ukAmountSchema is the JSON Schema of a money input: a decimal string
// ("52000.50") or a number, at most pence.
func ukAmountSchema(description string) map[string]any { return amountSchema(description) }

// ukPounds formats d as "£12,570.00" for the trace's rules.
func ukPounds(d Decimal) string {
	s := d.Money()
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + "£" + b.String() + "." + frac
}

// roundNI rounds a National Insurance figure to the penny the way HMRC's
// exact percentage method does: to the nearest penny, with a halfpenny or
// less disregarded (SS(C)R 2001 reg 12; NIM11002).
func roundNI(d Decimal) Decimal {
	down := d.Round(2, Down)
	if d.Sub(down).Mul(Int(1000)).Cmp(Int(5)) > 0 {
		return d.Round(2, Up)
	}
	return down
}
