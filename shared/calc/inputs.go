package calc

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// maxInputAmount bounds any money input: a larger figure is a typo or an
// attack on the arithmetic, not a tax question.
var maxInputAmount = Int(10_000_000_000)

// CheckAmount validates a money input named field ("income"): required
// when asked, not negative, not absurd, at most cents. It returns the value
// (0 when absent and optional).
func CheckAmount(field string, d *Decimal, required bool) (Decimal, error) {
	if d == nil {
		if required {
			return Decimal{}, &FieldError{Field: "inputs." + field, Message: "is required"}
		}
		return Decimal{}, nil
	}
	switch {
	case d.Sign() < 0:
		return Decimal{}, &FieldError{Field: "inputs." + field, Message: "must not be negative"}
	case d.Cmp(maxInputAmount) > 0:
		return Decimal{}, &FieldError{Field: "inputs." + field, Message: fmt.Sprintf("must not exceed %s", maxInputAmount)}
	case d.Round(2, Down).Cmp(*d) != 0:
		return Decimal{}, &FieldError{Field: "inputs." + field, Message: "must have at most two decimal places"}
	}
	return *d, nil
}

// CheckChoice validates an enumerated input; "" takes def ("" = required).
func CheckChoice(field, value, def string, allowed ...string) (string, error) {
	if value == "" {
		if def == "" {
			return "", &FieldError{Field: "inputs." + field, Message: fmt.Sprintf("is required: one of %v", allowed)}
		}
		return def, nil
	}
	for _, a := range allowed {
		if value == a {
			return value, nil
		}
	}
	return "", &FieldError{Field: "inputs." + field, Message: fmt.Sprintf("must be one of %v", allowed)}
}

// wholeNumber is an integer input (an age). JSON Schema counts 98.0 as
// the integer 98, so it is read as one; a fraction is refused.
type wholeNumber int

func (n *wholeNumber) UnmarshalJSON(b []byte) error {
	text := strings.TrimSpace(string(b))
	if strings.HasPrefix(text, `"`) {
		return errors.New("must be a whole number, not a string")
	}
	d, err := parseJSONNumber(text)
	if err != nil || !d.r.IsInt() {
		return errors.New("must be a whole number")
	}
	if !d.r.Num().IsInt64() || d.r.Num().Int64() > math.MaxInt32 || d.r.Num().Int64() < math.MinInt32 {
		return errors.New("is out of range")
	}
	*n = wholeNumber(d.r.Num().Int64())
	return nil
}
