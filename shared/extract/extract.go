// Package extract turns a fetched source (HTML, PDF or plain text) into the
// readable text the enrichment LLM call reads, capped in length and hashed
// so an unchanged source is not processed twice.
package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"
)

// DefaultMaxChars caps the extracted text: enough for a long guidance page,
// small enough that several sources fit in one LLM call.
const DefaultMaxChars = 60_000

var (
	// ErrUnsupported: the media type is not HTML, PDF or plain text.
	ErrUnsupported = errors.New("extract: unsupported content type")
	// ErrNoText: the document held no readable text (a scanned PDF, an
	// empty or script-only page). Nothing to give the LLM.
	ErrNoText = errors.New("extract: no readable text")
)

// Options tune extraction.
type Options struct {
	// MaxChars caps Content in characters (runes); 0 means DefaultMaxChars.
	MaxChars int
}

// Text is a document's readable text.
type Text struct {
	Content string
	// Truncated is set when Content was cut at MaxChars.
	Truncated bool
	// SHA256 is the hex SHA-256 of Content: the text the LLM would read, so
	// an equal hash means re-processing would see exactly the same input.
	SHA256 string
}

// Readable extracts the text of body according to its Content-Type header
// (parameters such as charset are honoured).
func Readable(contentType string, body []byte, opts Options) (Text, error) {
	maxChars := opts.MaxChars
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return Text{}, fmt.Errorf("%w: %q", ErrUnsupported, contentType)
	}
	var content string
	switch mediaType {
	case "text/html", "application/xhtml+xml":
		content, err = HTMLText(body, contentType)
	case "application/pdf":
		// Stop reading pages once past the cap; the rest would be cut anyway.
		content, err = PDFText(body, maxChars+1)
	case "text/plain":
		content, err = PlainText(body, contentType)
	default:
		return Text{}, fmt.Errorf("%w: %q", ErrUnsupported, contentType)
	}
	if err != nil {
		return Text{}, err
	}
	if strings.TrimSpace(content) == "" {
		return Text{}, ErrNoText
	}
	return finish(content, maxChars), nil
}

// finish caps content and hashes what is kept.
func finish(content string, maxChars int) Text {
	content, truncated := capText(content, maxChars)
	sum := sha256.Sum256([]byte(content))
	return Text{Content: content, Truncated: truncated, SHA256: hex.EncodeToString(sum[:])}
}

// capText cuts s to at most maxChars runes, preferring a line break (or
// else a space) near the end so the last fact is not cut mid-sentence.
func capText(s string, maxChars int) (string, bool) {
	if utf8.RuneCountInString(s) <= maxChars {
		return s, false
	}
	cut := len(s)
	for i := range s {
		if maxChars == 0 {
			cut = i
			break
		}
		maxChars--
	}
	head := s[:cut]
	// Look back at most a fifth of the text for a clean break.
	floor := len(head) - len(head)/5
	if i := strings.LastIndexByte(head, '\n'); i > 0 && i >= floor {
		head = head[:i]
	} else if i := strings.LastIndexByte(head, ' '); i > 0 && i >= floor {
		head = head[:i]
	}
	return strings.TrimRight(head, " \t\n"), true
}
