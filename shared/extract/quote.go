package extract

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// ContainsQuote reports whether quote occurs in text once both are
// normalised: Unicode compatibility forms (NFKC), case, curly and straight
// quotes, every kind of dash, invisible characters (soft hyphen, zero-width
// space), and runs of whitespace and table-cell separators ("|") count as
// one space. Leading and trailing spaces, quotes and sentence punctuation
// of the quote are ignored. An empty quote is never contained: it supports
// nothing. The enrichment step drops facts whose quote fails this check.
func ContainsQuote(text, quote string) bool {
	q := strings.Trim(normalizeForQuote(quote), ` .,;:'"`)
	if q == "" {
		return false
	}
	return strings.Contains(normalizeForQuote(text), q)
}

func normalizeForQuote(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case isInvisible(r):
			continue
		case unicode.IsSpace(r) || r == '|':
			space = true
			continue
		case strings.ContainsRune("\u2018\u2019\u201a\u201b\u2032\u0060\u00b4", r):
			r = '\''
		case strings.ContainsRune("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", r):
			r = '"'
		case unicode.Is(unicode.Pd, r) || r == '\u2212':
			r = '-'
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func isInvisible(r rune) bool {
	switch r {
	case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return true
	}
	return false
}
