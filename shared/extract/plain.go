package extract

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html/charset"
)

// PlainText returns a text/plain body as it is, decoded to UTF-8 (charset
// from contentType, else UTF-8 if valid, else Windows-1252), with line
// endings normalised and control characters other than tab and newline
// removed.
func PlainText(body []byte, contentType string) (string, error) {
	if len(body) == 0 {
		return "", nil
	}
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return "", fmt.Errorf("extract: text charset: %w", err)
	}
	decoded, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("extract: decode text: %w", err)
	}
	s := strings.ToValidUTF8(string(decoded), "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s), nil
}
