package calc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is an exact rational number for money and rates: no float ever
// touches an amount. The zero value is 0. Operations return new values.
type Decimal struct{ r *big.Rat }

// ParseDecimal reads a plain decimal ("1234.56", "-3", "0.5"); no
// exponents, fractions or thousands separators.
func ParseDecimal(s string) (Decimal, error) {
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsAny(t, "eE/_,") {
		return Decimal{}, fmt.Errorf("not a decimal number: %q", s)
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		return Decimal{}, fmt.Errorf("not a decimal number: %q", s)
	}
	return Decimal{r}, nil
}

// MustDecimal is ParseDecimal for literals in tests and fixed arithmetic
// (52 weeks, 100 percent), never for a rate or band.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Int is the integer n as a Decimal.
func Int(n int64) Decimal { return Decimal{new(big.Rat).SetInt64(n)} }

// decimalFromStored reads a number stored in the graph. JSON gives float64
// and Bolt int64 or float64; the shortest decimal that round-trips the
// float is the value the dataset wrote (0.5, 4.1, 9.75).
func decimalFromStored(v any) (Decimal, bool) {
	switch n := v.(type) {
	case float64:
		return MustDecimal(strconv.FormatFloat(n, 'f', -1, 64)), true
	case float32:
		return MustDecimal(strconv.FormatFloat(float64(n), 'f', -1, 32)), true
	case int64:
		return Int(n), true
	case int:
		return Int(int64(n)), true
	case json.Number:
		d, err := ParseDecimal(n.String())
		return d, err == nil
	case string:
		d, err := ParseDecimal(n)
		return d, err == nil
	}
	return Decimal{}, false
}

func (d Decimal) rat() *big.Rat {
	if d.r == nil {
		return new(big.Rat)
	}
	return d.r
}

// Add returns d + e.
func (d Decimal) Add(e Decimal) Decimal { return Decimal{new(big.Rat).Add(d.rat(), e.rat())} }

// Sub returns d - e.
func (d Decimal) Sub(e Decimal) Decimal { return Decimal{new(big.Rat).Sub(d.rat(), e.rat())} }

// Mul returns d × e.
func (d Decimal) Mul(e Decimal) Decimal { return Decimal{new(big.Rat).Mul(d.rat(), e.rat())} }

// Div returns d ÷ e; e must not be zero.
func (d Decimal) Div(e Decimal) Decimal { return Decimal{new(big.Rat).Quo(d.rat(), e.rat())} }

// Percent returns d × pct / 100 (pct as the dataset stores it: 4.1 for 4.1%).
func (d Decimal) Percent(pct Decimal) Decimal { return d.Mul(pct).Div(Int(100)) }

// Neg returns -d.
func (d Decimal) Neg() Decimal { return Decimal{new(big.Rat).Neg(d.rat())} }

// Cmp compares d and e: -1, 0 or +1.
func (d Decimal) Cmp(e Decimal) int { return d.rat().Cmp(e.rat()) }

// Sign is -1, 0 or +1.
func (d Decimal) Sign() int { return d.rat().Sign() }

// IsZero reports d == 0.
func (d Decimal) IsZero() bool { return d.Sign() == 0 }

// Min returns the smaller of d and e.
func (d Decimal) Min(e Decimal) Decimal {
	if d.Cmp(e) <= 0 {
		return d
	}
	return e
}

// Max returns the larger of d and e.
func (d Decimal) Max(e Decimal) Decimal {
	if d.Cmp(e) >= 0 {
		return d
	}
	return e
}

// Clamp0 returns d, or 0 when d is negative.
func (d Decimal) Clamp0() Decimal { return d.Max(Decimal{}) }

// Rounding names how a figure is brought to a number of decimal places.
type Rounding int

const (
	// HalfUp rounds to the nearest, halves away from zero (Revenue's and
	// HMRC's "nearest cent/penny").
	HalfUp Rounding = iota
	// Down truncates toward zero ("rounded down to the nearest cent").
	Down
	// Up rounds away from zero ("rounded up to the nearest cent").
	Up
)

// Round returns d rounded to places decimal places by mode.
func (d Decimal) Round(places int, mode Rounding) Decimal {
	scale := pow10(places)
	scaled := new(big.Rat).Mul(d.rat(), new(big.Rat).SetInt(scale))
	num, den := scaled.Num(), scaled.Denom()
	neg := num.Sign() < 0
	abs := new(big.Int).Abs(num)
	q, rem := new(big.Int).QuoRem(abs, den, new(big.Int))
	if rem.Sign() != 0 {
		switch mode {
		case Up:
			q.Add(q, big.NewInt(1))
		case HalfUp:
			if new(big.Int).Mul(rem, big.NewInt(2)).Cmp(den) >= 0 {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if neg {
		q.Neg(q)
	}
	return Decimal{new(big.Rat).SetFrac(q, scale)}
}

// powersOf10 are 10^0 … 10^10, shared read-only by Round.
var powersOf10 = func() []*big.Int {
	out := make([]*big.Int, 11)
	for i := range out {
		out[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
	}
	return out
}()

func pow10(n int) *big.Int {
	if n >= 0 && n < len(powersOf10) {
		return powersOf10[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// Cents is d rounded half up to the cent.
func (d Decimal) Cents() Decimal { return d.Round(2, HalfUp) }

// Fixed formats d with exactly places decimals, rounding half up.
func (d Decimal) Fixed(places int) string {
	return d.Round(places, HalfUp).rat().FloatString(places)
}

// Money formats d to the cent: "1234.56".
func (d Decimal) Money() string { return d.Fixed(2) }

// String formats d exactly when it has at most 10 decimals (every value
// here does), otherwise rounded to 10, without trailing zeros.
func (d Decimal) String() string {
	s := d.rat().FloatString(10)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// MarshalJSON writes the decimal as a JSON string.
func (d Decimal) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a decimal string ("52000.50") or a JSON number
// (52000.5), taken from its text so no float is involved.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	text := strings.TrimSpace(string(b))
	parse := parseJSONNumber
	if strings.HasPrefix(text, `"`) {
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
		parse = ParseDecimal
	}
	v, err := parse(text)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// maxJSONExponent bounds a JSON number's exponent (float64's own range is
// about ±308), so a crafted "1e999999999" cannot grow a huge rational.
const maxJSONExponent = 400

// parseJSONNumber reads a JSON number token, which may be written with an
// exponent ("5.2e4"); a decimal string is read by ParseDecimal, which
// takes none.
func parseJSONNumber(text string) (Decimal, error) {
	i := strings.IndexAny(text, "eE")
	if i < 0 {
		return ParseDecimal(text)
	}
	exp, err := strconv.Atoi(strings.TrimPrefix(text[i+1:], "+"))
	if err != nil || exp < -maxJSONExponent || exp > maxJSONExponent {
		return Decimal{}, fmt.Errorf("not a decimal number: %q", text)
	}
	mantissa, err := ParseDecimal(text[:i])
	if err != nil {
		return Decimal{}, err
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || mantissa.r == nil {
		return Decimal{}, fmt.Errorf("not a decimal number: %q", text)
	}
	return Decimal{r}, nil
}
