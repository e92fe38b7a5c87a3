package pii

import (
	"html"
	"slices"
	"strings"
	"unicode/utf8"
)

// Normalize returns text in the one form every detector reads, and the
// graph guard and the prompt fence with them: folded (see Fold, with tag
// characters read as the ASCII they stand for), HTML entities and
// percent-encoding decoded (nested ones too), defanged and bracketed
// forms ("81[.]17", "(at)", "hxxp") undone, the word forms of '@' and '.'
// read as those signs where an e-mail address or an IP address results,
// numbers in words read as digits ("oh eight seven", "nineteen
// eighty-two", "fifth"), values written letter by letter joined, and O
// and l in a phone-like run of digits read as 0 and 1.
func Normalize(text string) string { return normalize(text).text }

// Normalized is a text's normal form with the way back to the original.
type Normalized struct {
	Text string
	f    folded
}

// NormalizeSpans is Normalize keeping, for each byte of the form, the
// span of the original text it came from (see Original).
func NormalizeSpans(text string) Normalized {
	f := normalize(text)
	return Normalized{Text: f.text, f: f}
}

// Original maps the byte range [start, end) of the form to the range of
// the original text it was read from.
func (n Normalized) Original(start, end int) (int, int) {
	if start >= end {
		s, _ := n.f.span(start, start+1)
		return s, s
	}
	return n.f.span(start, end)
}

func normalize(text string) folded {
	f := fold(text)
	if strings.ContainsAny(f.text, "&%") {
		f = decodeEscapes(f)
	}
	if strings.ContainsAny(f.text, "[({<") || strings.Contains(f.text, "xxp") || strings.Contains(f.text, "XXP") {
		f = f.apply(defangEdits(f.text))
	}
	if strings.Contains(f.text, "_") {
		f = f.apply(underscoreEdits(f.text))
	}
	f = f.apply(wordEdits(f.text))
	f = f.apply(letterByLetterEdits(f.text))
	f = f.apply(lookAlikeDigitEdits(f.text))
	return f
}

// edit replaces text[start:end] of a form with repl.
type edit struct {
	start, end int
	repl       string
}

// apply makes the edits (ordered, not overlapping) to the form; each byte
// of a replacement maps to the whole span the edited bytes came from.
func (f folded) apply(edits []edit) folded {
	if len(edits) == 0 {
		return f
	}
	var m mapBuilder
	var b strings.Builder
	b.Grow(len(f.text))
	last := 0
	for _, e := range edits {
		if e.start < last {
			continue
		}
		b.WriteString(f.text[last:e.start])
		m.takeFrom(f, last, e.start)
		switch {
		case e.end-e.start == 1 && len(e.repl) == 1:
			// A byte for a byte maps where the one it replaces did, so
			// the copied runs either side stay one segment.
			m.takeFrom(f, e.start, e.end)
		case e.end > e.start:
			s, en := f.span(e.start, e.end)
			m.whole(s, en, len(e.repl))
		}
		b.WriteString(e.repl)
		last = e.end
	}
	b.WriteString(f.text[last:])
	m.takeFrom(f, last, len(f.text))
	out := folded{text: b.String(), segments: m.segments}
	if out.segments == nil {
		out.segments = []segment{}
	}
	return out
}

// maxDecodeRounds undoes escapes nested this deep ("%2540" is "%40" is
// "@"); a real text is never encoded more often.
const maxDecodeRounds = 3

// decodeEscapes reads HTML entities (named, decimal, hex) and %XX
// percent-escapes as the characters they stand for, folded.
func decodeEscapes(f folded) folded {
	for range maxDecodeRounds {
		edits := escapeEdits(f.text)
		if len(edits) == 0 {
			break
		}
		f = f.apply(edits)
	}
	return f
}

func escapeEdits(t string) []edit {
	var out []edit
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '&':
			if e, ok := entityAt(t, i); ok {
				out = append(out, e)
				i = e.end - 1
			}
		case '%':
			if e, ok := percentAt(t, i); ok {
				out = append(out, e)
				i = e.end - 1
			}
		}
	}
	return out
}

// entityAt reads an entity at i: "&name;", "&#64;" or "&#x40;".
func entityAt(t string, i int) (edit, bool) {
	j := i + 1
	for j < len(t) && j-i <= 32 && (isAlnum(t[j]) || t[j] == '#') {
		j++
	}
	if j >= len(t) || t[j] != ';' || j == i+1 {
		return edit{}, false
	}
	s := html.UnescapeString(t[i : j+1])
	if s == t[i:j+1] {
		return edit{}, false
	}
	return edit{i, j + 1, foldString(s)}, true
}

// percentAt reads %XX at i, or a run of them spelling one UTF-8
// character.
func percentAt(t string, i int) (edit, bool) {
	var buf [4]byte
	n, j := 0, i
	for j+2 < len(t) && t[j] == '%' && isHex(t[j+1]) && isHex(t[j+2]) && n < 4 {
		buf[n] = unhex(t[j+1])<<4 | unhex(t[j+2])
		n++
		j += 3
		if buf[0] < utf8.RuneSelf || utf8.FullRune(buf[:n]) {
			break
		}
	}
	if n == 0 {
		return edit{}, false
	}
	if buf[0] < utf8.RuneSelf {
		if buf[0] < ' ' {
			return edit{i, j, " "}, true
		}
		return edit{i, j, string(buf[:1])}, true
	}
	r, size := utf8.DecodeRune(buf[:n])
	if r == utf8.RuneError || size != n {
		return edit{}, false
	}
	return edit{i, j, foldRune(r)}, true
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// foldString folds each character of s (see foldRune).
func foldString(s string) string {
	if isPlainASCII(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
		} else {
			b.WriteString(foldRune(r))
		}
	}
	return b.String()
}

// defangEdits undo the bracketed forms written to keep a value from
// working or from being seen: "81[.]17", "(dot)", "[at]", "hxxp". White
// space around a bracketed '@' or '.' goes with it.
func defangEdits(t string) []edit {
	var out []edit
	for i := 0; i < len(t); i++ {
		next := strings.IndexAny(t[i:], "[({<hH")
		if next < 0 {
			break
		}
		i += next
		c := t[i]
		if (c == 'h' || c == 'H') && i+4 <= len(t) && strings.EqualFold(t[i:i+4], "hxxp") && (i == 0 || !isLetter(t[i-1])) {
			out = append(out, edit{i, i + 4, "http"})
			i += 3
			continue
		}
		sign, word, k, ok := bracketedSign(t, i)
		if !ok {
			continue
		}
		start, end := i, k+1
		if sign == "@" || word == "dot" {
			for start > 0 && t[start-1] == ' ' {
				start--
			}
			for end < len(t) && t[end] == ' ' {
				end++
			}
		}
		if n := len(out); n > 0 && start < out[n-1].end {
			start = out[n-1].end
		}
		out = append(out, edit{start, end, sign})
		i = k
	}
	return out
}

// bracketedSign reads "[at]", "( dot )", "{.}" or "<@>" at i: the sign
// it stands for, the word inside, and the closing bracket's index.
func bracketedSign(t string, i int) (sign, word string, closeAt int, ok bool) {
	var closer byte
	switch t[i] {
	case '[':
		closer = ']'
	case '(':
		closer = ')'
	case '{':
		closer = '}'
	case '<':
		closer = '>'
	default:
		return "", "", 0, false
	}
	j := i + 1
	for j < len(t) && t[j] == ' ' {
		j++
	}
	k := j
	for k < len(t) && k-j < 4 && (isLetter(t[k]) || t[k] == '.' || t[k] == '@') {
		k++
	}
	wordEnd := k
	for k < len(t) && t[k] == ' ' {
		k++
	}
	if k >= len(t) || t[k] != closer {
		return "", "", 0, false
	}
	word = strings.ToLower(t[j:wordEnd])
	switch word {
	case "at", "@":
		return "@", word, k, true
	case "dot", ".":
		return ".", word, k, true
	}
	return "", "", 0, false
}

// underscoreEdits read "_" as a space (how an id joins words).
func underscoreEdits(t string) []edit {
	var out []edit
	for i := 0; i < len(t); i++ {
		if t[i] == '_' {
			out = append(out, edit{i, i + 1, " "})
		}
	}
	return out
}

// letterByLetterEdits join a value written one character at a time ("A B
// 1 2 3 4 5 6 C", "d-0-2-x-2-8-5"): six or more single letters and digits
// each one separator apart, at least one a letter and three digits.
func letterByLetterEdits(t string) []edit {
	var out []edit
	single := func(i int) bool {
		return i < len(t) && isAlnum(t[i]) && (i == 0 || !isWordByte(t[i-1])) && (i+1 >= len(t) || !isWordByte(t[i+1]))
	}
	for i := 0; i < len(t); i++ {
		if !single(i) {
			continue
		}
		j, letters, digits, n := i, 0, 0, 0
		for {
			n++
			if isDigit(t[j]) {
				digits++
			} else {
				letters++
			}
			if j+2 < len(t) && (t[j+1] == ' ' || t[j+1] == '-' || t[j+1] == '.') && single(j+2) {
				j += 2
				continue
			}
			break
		}
		if n >= 6 && letters >= 1 && digits >= 3 {
			for k := i + 1; k < j; k += 2 {
				out = append(out, edit{k, k + 1, ""})
			}
		}
		i = j
	}
	return out
}

// lookAlikeDigitEdits read O and o as 0, and l and I as 1, inside a
// phone-like run: groups of digits and those letters, none glued to
// another letter, holding six digits or more in all.
func lookAlikeDigitEdits(t string) []edit {
	var out []edit
	for i := 0; i < len(t); i++ {
		if !isDigitLike(t[i]) || i > 0 && (isLetter(t[i-1]) || isDigit(t[i-1])) {
			continue
		}
		// Read groups of digit-like bytes one separator apart.
		j, digits, last := i, 0, i
		var marks []int
		for j < len(t) {
			g := j
			groupDigits := 0
			for j < len(t) && isDigitLike(t[j]) {
				if isDigit(t[j]) {
					groupDigits++
				} else {
					marks = append(marks, j)
				}
				j++
			}
			if j < len(t) && isLetter(t[j]) || groupDigits == 0 {
				// Glued to a word, or no digit: not part of the run.
				marks = slices.DeleteFunc(marks, func(k int) bool { return k >= g })
				break
			}
			digits += groupDigits
			last = j
			if j+1 < len(t) && isSeparator(t[j]) && t[j] != '_' && isDigitLike(t[j+1]) {
				j++
				continue
			}
			break
		}
		if digits >= 6 && len(marks) > 0 {
			for _, k := range marks {
				d := "1"
				if t[k] == 'O' || t[k] == 'o' {
					d = "0"
				}
				out = append(out, edit{k, k + 1, d})
			}
		}
		i = max(i, last)
	}
	return out
}

func isDigitLike(c byte) bool { return isDigit(c) || c == 'O' || c == 'o' || c == 'l' || c == 'I' }

// StripInvisible removes the characters that show nothing on screen but
// that a model reads or that reorder what a reader sees: Unicode tag
// characters (U+E0000 to U+E007F) and the bidirectional controls. Stored
// and forwarded text goes without them.
func StripInvisible(text string) string {
	if isPlainASCII(text) || !strings.ContainsFunc(text, isInvisible) {
		return text
	}
	return strings.Map(func(r rune) rune {
		if isInvisible(r) {
			return -1
		}
		return r
	}, text)
}

func isInvisible(r rune) bool {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}
