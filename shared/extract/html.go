package extract

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// HTML is read with golang.org/x/net/html, the WHATWG-conformant parser,
// and not with go-readability. Readability scores nodes to guess the one
// "article" and throws away the rest, tables with little prose among them;
// on a regulatory page the rates table is the content. Its guess also shifts
// with page layout, which would make the content hash unstable. Walking the
// parsed tree and dropping elements by their meaning (navigation, header,
// footer, aside, scripts, forms, hidden content) is predictable and keeps
// headings, paragraphs, lists and tables as lines.

// skippedElements never hold content worth reading.
var skippedElements = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Aside: true, atom.Form: true, atom.Button: true, atom.Select: true,
	atom.Textarea: true, atom.Input: true, atom.Label: true, atom.Iframe: true, atom.Svg: true,
	atom.Math: true, atom.Canvas: true, atom.Object: true, atom.Embed: true, atom.Dialog: true,
	atom.Img: true, atom.Picture: true, atom.Video: true, atom.Audio: true, atom.Map: true,
}

// skippedRoles are ARIA landmarks and widgets that are page chrome.
var skippedRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "search": true,
	"complementary": true, "dialog": true, "alertdialog": true, "menu": true, "menubar": true,
}

// blockElements start and end a line.
var blockElements = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Blockquote: true, atom.Caption: true, atom.Dd: true,
	atom.Details: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true,
	atom.Li: true, atom.Main: true, atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true,
	atom.Summary: true, atom.Table: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true,
	atom.Tr: true, atom.Ul: true, atom.Body: true,
}

// HTMLText returns the readable text of an HTML page, one line per block:
// list items start with "- ", table rows join their cells with " | ". When
// the page marks its main content (<main> or role="main"), only that is
// read. contentType (may be empty) supplies the charset; a <meta> charset or
// BOM is honoured too.
func HTMLText(body []byte, contentType string) (string, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return "", nil
	}
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return "", fmt.Errorf("extract: html charset: %w", err)
	}
	doc, err := html.Parse(r)
	if err != nil {
		return "", fmt.Errorf("extract: parse html: %w", err)
	}
	if main := findMain(doc); main != nil {
		if text := renderText(main); strings.TrimSpace(text) != "" {
			return text, nil
		}
	}
	return renderText(doc), nil
}

func findMain(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && (n.DataAtom == atom.Main || attr(n, "role") == "main") && !skipped(n, nil) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := findMain(c); found != nil {
			return found
		}
	}
	return nil
}

func renderText(root *html.Node) string {
	w := &lineWriter{}
	w.walk(root, nil)
	w.endLine()
	return strings.Join(w.lines, "\n")
}

// skipped reports whether an element is chrome or hidden. ancestors is the
// element path above n (nil when unknown).
func skipped(n *html.Node, ancestors []*html.Node) bool {
	if skippedElements[n.DataAtom] || skippedRoles[strings.ToLower(attr(n, "role"))] {
		return true
	}
	// Hidden text is not what a reader sees, and a favourite place for
	// instructions aimed at a model.
	if hasAttr(n, "hidden") || strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return true
	}
	style := strings.ReplaceAll(strings.ToLower(attr(n, "style")), " ", "")
	if strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden") {
		return true
	}
	// A header or footer is page chrome (banner, contentinfo) unless it
	// belongs to an article, section or main, where it holds the title or
	// notes of that content (the HTML-ARIA mapping).
	if n.DataAtom == atom.Header || n.DataAtom == atom.Footer {
		for _, a := range ancestors {
			switch a.DataAtom {
			case atom.Article, atom.Section, atom.Main:
				return false
			}
			if attr(a, "role") == "main" {
				return false
			}
		}
		return true
	}
	return false
}

// lineWriter accumulates text into lines, collapsing whitespace as a
// browser would.
type lineWriter struct {
	lines        []string
	cur          strings.Builder
	pendingSpace bool
	cells        []int // cells written so far in each open table row
	preDepth     int
	curIsPre     bool // cur holds preformatted text: keep its indentation
}

func (w *lineWriter) walk(n *html.Node, ancestors []*html.Node) {
	switch n.Type {
	case html.TextNode:
		if w.preDepth > 0 {
			w.preformatted(n.Data)
		} else {
			w.text(n.Data)
		}
		return
	case html.ElementNode:
		if skipped(n, ancestors) {
			return
		}
	case html.DocumentNode:
	default:
		return
	}

	block := n.Type == html.ElementNode && blockElements[n.DataAtom]
	if block {
		w.endLine()
	}
	switch n.DataAtom {
	case atom.Br:
		w.endLine()
	case atom.Li:
		w.raw("- ")
	case atom.Tr:
		w.cells = append(w.cells, 0)
	case atom.Td, atom.Th:
		if k := len(w.cells) - 1; k >= 0 {
			if w.cells[k] > 0 {
				w.raw(" | ")
			}
			w.cells[k]++
		} else {
			w.pendingSpace = true
		}
	case atom.Pre:
		w.preDepth++
	}

	path := append(ancestors, n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, path)
	}

	switch n.DataAtom {
	case atom.Tr:
		w.cells = w.cells[:len(w.cells)-1]
	case atom.Pre:
		w.preDepth--
	}
	if block {
		w.endLine()
	}
}

// text appends s with runs of whitespace collapsed to one space.
func (w *lineWriter) text(s string) {
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" {
			w.pendingSpace = true
		}
		return
	}
	if isSpaceByte(s[0]) {
		w.pendingSpace = true
	}
	for i, word := range words {
		if i > 0 {
			w.pendingSpace = true
		}
		if w.pendingSpace && w.cur.Len() > 0 {
			w.cur.WriteByte(' ')
		}
		w.pendingSpace = false
		w.cur.WriteString(word)
	}
	if isSpaceByte(s[len(s)-1]) {
		w.pendingSpace = true
	}
}

// preformatted keeps the line structure of <pre> text.
func (w *lineWriter) preformatted(s string) {
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			w.endLine()
		}
		w.cur.WriteString(strings.TrimRight(line, " \t\r"))
		w.curIsPre = true
	}
}

// raw writes markup-derived text (list markers, cell separators) verbatim.
func (w *lineWriter) raw(s string) {
	w.cur.WriteString(s)
	w.pendingSpace = false
}

func (w *lineWriter) endLine() {
	line := strings.TrimSpace(w.cur.String())
	if w.curIsPre {
		line = strings.TrimRight(w.cur.String(), " \t")
	}
	w.cur.Reset()
	w.pendingSpace, w.curIsPre = false, false
	// A marker or separator with no text around it carries nothing.
	if strings.Trim(line, "-| ") == "" {
		return
	}
	w.lines = append(w.lines, line)
}

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}
