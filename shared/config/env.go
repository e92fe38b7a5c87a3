package config

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

const maxInt = int(^uint(0) >> 1)

// reader reads variables and keeps the first error, so FromEnv reads every
// section in one pass and reports the first bad value.
type reader struct{ err error }

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// raw returns a value as set, spaces included: for secrets.
func (r *reader) raw(name string) string { return os.Getenv(name) }

func (r *reader) str(name, fallback string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return fallback
}

// oneOf returns the value if it is one of allowed, else records an error.
func (r *reader) oneOf(name, fallback string, allowed ...string) string {
	v := r.str(name, fallback)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail(fmt.Errorf("%s=%q: use %s", name, v, orList(allowed)))
	return fallback
}

func (r *reader) int(name string, fallback, minimum, maximum int) int {
	v := r.str(name, "")
	if v == "" {
		return fallback
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n < 0:
		r.fail(fmt.Errorf("%s=%q is not a non-negative integer", name, v))
	case n < minimum || n > maximum:
		r.fail(fmt.Errorf("%s=%d: use %d to %d", name, n, minimum, maximum))
	default:
		return n
	}
	return fallback
}

// days reads a positive whole number of days.
func (r *reader) days(name string, fallback int) time.Duration {
	v := r.str(name, "")
	if v == "" {
		return time.Duration(fallback) * 24 * time.Hour
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		r.fail(fmt.Errorf("%s=%q: use a positive whole number of days", name, v))
		return time.Duration(fallback) * 24 * time.Hour
	}
	return time.Duration(n) * 24 * time.Hour
}

func (r *reader) duration(name string, fallback time.Duration) time.Duration {
	v := r.str(name, "")
	if v == "" {
		return fallback
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		r.fail(fmt.Errorf("%s=%q: use a positive duration such as 15m", name, v))
		return fallback
	}
	return d
}

// ratio reads a number from 0 to 1.
func (r *reader) ratio(name string, fallback float64) float64 {
	v := r.str(name, "")
	if v == "" {
		return fallback
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0 && f <= 1) {
		r.fail(fmt.Errorf("%s=%q: use a number from 0 to 1, such as 0.1", name, v))
		return fallback
	}
	return f
}

func (r *reader) bool(name string, fallback bool) bool {
	v := r.str(name, "")
	if v == "" {
		return fallback
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.fail(fmt.Errorf("%s=%q: use true or false", name, v))
		return fallback
	}
	return b
}

// list splits a comma-separated value, dropping empty items.
func (r *reader) list(name string) []string {
	var items []string
	for _, s := range strings.Split(os.Getenv(name), ",") {
		if s = strings.TrimSpace(s); s != "" {
			items = append(items, s)
		}
	}
	return items
}

func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
