package extract

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// PDFText returns the text of a PDF's pages, one line per text row, reading
// pages until maxChars runes are collected (0: all). The text layer is read
// glyph by glyph with positions (Page.Content) rather than with the
// library's GetPlainText, which knows only the T* line operator and runs the
// lines of most real PDFs (positioned with Td/Tm) together. A scanned PDF
// has no text layer and yields "".
func PDFText(body []byte, maxChars int) (text string, err error) {
	// The parser panics on some malformed input; a bad source must not
	// take the whole enrichment job down.
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("extract: malformed pdf: %v", r)
		}
	}()
	reader, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return "", fmt.Errorf("extract: open pdf: %w", err)
	}
	var out strings.Builder
	for i := 1; i <= reader.NumPage(); i++ {
		page := reader.Page(i)
		if page.V.IsNull() {
			continue
		}
		if out.Len() > 0 {
			out.WriteString("\n")
		}
		writeRows(&out, page.Content().Text)
		if maxChars > 0 && utf8.RuneCountInString(out.String()) >= maxChars {
			break
		}
	}
	return strings.TrimSpace(out.String()), nil
}

// writeRows joins positioned glyphs into lines: a change of baseline starts
// a new line, and a horizontal gap wider than a fifth of the font size
// becomes a space (PDFs often position words instead of writing spaces).
func writeRows(out *strings.Builder, glyphs []pdf.Text) {
	var line strings.Builder
	flush := func() {
		if s := strings.TrimSpace(line.String()); s != "" {
			out.WriteString(s)
			out.WriteString("\n")
		}
		line.Reset()
	}
	for i, g := range glyphs {
		if i > 0 {
			prev := glyphs[i-1]
			size := math.Max(math.Max(g.FontSize, prev.FontSize), 1)
			switch {
			case math.Abs(g.Y-prev.Y) > size/2:
				flush()
			case g.X-(prev.X+prev.W) > size/5 && !strings.HasSuffix(line.String(), " ") && g.S != " ":
				line.WriteByte(' ')
			}
		}
		line.WriteString(g.S)
	}
	flush()
}
