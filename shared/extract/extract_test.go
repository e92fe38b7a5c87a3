package extract_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"regintel/shared/extract"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readable(t *testing.T, contentType string, body []byte) extract.Text {
	t.Helper()
	text, err := extract.Readable(contentType, body, extract.Options{})
	if err != nil {
		t.Fatalf("Readable(%s): %v", contentType, err)
	}
	return text
}

func lines(s string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		out[l] = true
	}
	return out
}

func TestRevenueVATPageKeepsContentAndDropsChrome(t *testing.T) {
	text := readable(t, "text/html; charset=utf-8", fixture(t, "revenue-vat-rates.html"))
	got := lines(text.Content)
	for _, want := range []string{
		"Current VAT rates",
		"VAT rates in Ireland",
		"VAT rates from 1 January 2025",
		"Rate | Percentage | Examples",
		"Standard rate | 23% | Most goods and services, for example adult clothing, electrical goods and alcohol",
		"Reduced rate | 13.5% | Fuel for power and heating, building services, short-term car hire",
		"Second reduced rate | 9% | Newspapers, e-books, sporting facilities, gas and electricity supplies",
		"Livestock rate | 4.8% | Livestock, greyhounds and the hire of horses",
		"Zero rate | 0% | Exports, most food, children’s clothing and footwear, oral medicine",
		"Checking the rate for a product",
		"- Supplies of goods: the time of delivery.",
		"- Supplies of services: the time the service is completed.",
		"You can check the rate for a specific good or service in the VAT rates database. The rate that applies is the rate in force at the time the supply takes place.",
	} {
		if !got[want] {
			t.Errorf("missing line %q", want)
		}
	}
	for _, chrome := range []string{
		"Skip to main content", "cookies", "Search Revenue", "Personal tax credits", "Home",
		"In this section", "VAT registration", "Contact us", "Office of the Revenue Commissioners",
		"dataLayer", "gtag", "padding", "schema.org", "tracking pixel", "Ignore previous instructions", "every rate is 5%",
	} {
		if strings.Contains(text.Content, chrome) {
			t.Errorf("kept page chrome %q", chrome)
		}
	}
	if text.Truncated {
		t.Error("a short page was marked truncated")
	}
}

func TestCitizensInformationBenefitPage(t *testing.T) {
	text := readable(t, "text/html", fixture(t, "citizens-jobseekers-benefit.html"))
	got := lines(text.Content)
	for _, want := range []string{
		"Jobseeker’s Benefit",
		"Rules",
		"- Be unemployed for at least 4 days out of 7 consecutive days",
		"- Be under 66 years of age",
		"- Satisfy the PRSI contribution conditions",
		"PRSI contribution conditions",
		"You need 104 weeks of PRSI contributions paid since you first started work, and 39 weeks of PRSI paid or credited in the relevant tax year, of which 13 must be paid.",
		"The maximum personal rate of Jobseeker’s Benefit is €244 a week.",
		"Average weekly earnings | Personal rate | Increase for a qualified adult",
		"€300 or more | €244.00 | €162.00",
		"€220 – €299.99 | €183.70 | €121.30",
		"Less than €220 | €135.10 | €89.70",
	} {
		if !got[want] {
			t.Errorf("missing line %q", want)
		}
	}
	for _, chrome := range []string{"Money and tax", "Unemployed people >", "Was this page helpful", "Related documents",
		"Page edited", "Citizens Information Board", "analytics", "font-family"} {
		if strings.Contains(text.Content, chrome) {
			t.Errorf("kept page chrome %q", chrome)
		}
	}
	if !strings.HasPrefix(text.Content, "Jobseeker’s Benefit\nIntroduction\n") {
		t.Errorf("content starts %q", text.Content[:min(60, len(text.Content))])
	}
}

func TestHTMLStructureRules(t *testing.T) {
	page := `<html><body>
<header><p>Site banner</p></header>
<div id="content">
 <article>
  <header><h1>Article title</h1><p>Updated 2025</p></header>
  <p>First   paragraph
     spans lines.<br>After a break.</p>
  <p style="display: none">Hidden by style</p>
  <p aria-hidden="true">Hidden from readers</p>
  <div role="search">Search box</div>
  <ol><li>One</li><li>Two <em>emphasised</em> item</li><li><ul><li>Nested</li></ul></li></ol>
  <pre>line one
  line two</pre>
  <dl><dt>Term</dt><dd>Definition</dd></dl>
  <footer>Article footnote</footer>
 </article>
</div>
<footer>Site footer</footer>
</body></html>`
	text := readable(t, "text/html", []byte(page))
	want := strings.Join([]string{
		"Article title", "Updated 2025", "First paragraph spans lines.", "After a break.",
		"- One", "- Two emphasised item", "- Nested",
		"line one", "  line two", "Term", "Definition", "Article footnote",
	}, "\n")
	if text.Content != want {
		t.Errorf("content =\n%s\nwant\n%s", text.Content, want)
	}
}

func TestMainLandmarkWinsWhenPresent(t *testing.T) {
	page := `<body><div class="promo">Promo text</div><div role="main"><p>The rule.</p></div></body>`
	if got := readable(t, "text/html", []byte(page)).Content; got != "The rule." {
		t.Errorf("content = %q", got)
	}
	// An empty <main> (filled by scripts in a browser) falls back to the body.
	page = `<body><main></main><p>Server-rendered rule.</p></body>`
	if got := readable(t, "text/html", []byte(page)).Content; got != "Server-rendered rule." {
		t.Errorf("content = %q", got)
	}
}

func TestHTMLCharsets(t *testing.T) {
	// "Rate: 23% €" in Windows-1252, declared in the header...
	body := []byte("<p>Rate: 23% \x80</p>")
	if got := readable(t, "text/html; charset=windows-1252", body).Content; got != "Rate: 23% €" {
		t.Errorf("header charset: %q", got)
	}
	// ...or only in a <meta> tag.
	body = []byte(`<html><head><meta charset="iso-8859-1"></head><body><p>Caf` + "\xe9" + `</p></body></html>`)
	if got := readable(t, "text/html", body).Content; got != "Café" {
		t.Errorf("meta charset: %q", got)
	}
}

func TestPDFText(t *testing.T) {
	text := readable(t, "application/pdf", fixture(t, "vat-notice.pdf"))
	got := lines(text.Content)
	// Each Td-positioned line must come out as its own line.
	for _, want := range []string{
		"VAT Rates Notice",
		"Tax and Duty Manual - Value-Added Tax (VAT) rates",
		"The standard rate of VAT is 23% and applies to most goods and services.",
		"The reduced rate of 13.5% applies to fuel for power and heating and to building services.",
		"The second reduced rate of 9% applies to newspapers, e-books and sporting facilities.",
		"The livestock rate is 4.8%.",
		"Zero-rated supplies (0%) include exports, most food and oral medicine.",
		"Effective from 1 January 2025. A late filing surcharge of up to €4,000 may apply.",
	} {
		if !got[want] {
			t.Errorf("missing line %q in\n%s", want, text.Content)
		}
	}
	if !extract.ContainsQuote(text.Content, "the livestock rate is 4.8%") {
		t.Error("quote from the PDF not found")
	}
}

func TestPDFWithoutTextOrBroken(t *testing.T) {
	blank := tinyPDF([][]string{{}})
	if _, err := extract.Readable("application/pdf", blank, extract.Options{}); !errors.Is(err, extract.ErrNoText) {
		t.Errorf("PDF without text: err = %v, want ErrNoText", err)
	}
	whole := fixture(t, "vat-notice.pdf")
	for name, body := range map[string][]byte{
		"garbage":   []byte("%PDF-1.4\nnot really a pdf"),
		"truncated": whole[:len(whole)/2],
		"empty":     nil,
	} {
		if _, err := extract.Readable("application/pdf", body, extract.Options{}); err == nil {
			t.Errorf("%s PDF: no error", name)
		}
	}
}

func TestPlainText(t *testing.T) {
	body := []byte("Standard rate: 23%\r\nReduced rate: 13.5%\x00\x07\r\n\tIndented\n")
	if got := readable(t, "text/plain", body).Content; got != "Standard rate: 23%\nReduced rate: 13.5%\n\tIndented" {
		t.Errorf("content = %q", got)
	}
	if got := readable(t, "text/plain; charset=iso-8859-1", []byte("Caf\xe9")).Content; got != "Café" {
		t.Errorf("latin-1 content = %q", got)
	}
}

func TestUnsupportedAndEmpty(t *testing.T) {
	for _, ct := range []string{"application/json", "image/png", "", "text/html; charset"} {
		if _, err := extract.Readable(ct, []byte("{}"), extract.Options{}); !errors.Is(err, extract.ErrUnsupported) {
			t.Errorf("%q: err = %v, want ErrUnsupported", ct, err)
		}
	}
	for _, page := range []string{"", "<html><head><title>Only a title</title><script>x()</script></head><body><nav>Menu</nav></body></html>"} {
		if _, err := extract.Readable("text/html", []byte(page), extract.Options{}); !errors.Is(err, extract.ErrNoText) {
			t.Errorf("%q: err = %v, want ErrNoText", page, err)
		}
	}
}

func TestCapAndHash(t *testing.T) {
	page := fixture(t, "revenue-vat-rates.html")
	full := readable(t, "text/html", page)
	sum := sha256.Sum256([]byte(full.Content))
	if full.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("SHA256 = %s, want the hash of Content", full.SHA256)
	}
	if again := readable(t, "text/html", page); again.SHA256 != full.SHA256 {
		t.Error("same page, different hash")
	}
	// Chrome changes (navigation, scripts) leave the hash alone, so a
	// redesigned menu does not trigger re-processing; a changed rate does not.
	chrome := bytes.ReplaceAll(page, []byte("Jobs and pensions"), []byte("Jobs, pensions and more"))
	chrome = bytes.ReplaceAll(chrome, []byte("UA-000000-1"), []byte("G-NEWTAG"))
	if readable(t, "text/html", chrome).SHA256 != full.SHA256 {
		t.Error("a navigation change altered the hash")
	}
	changed := bytes.Replace(page, []byte("<td>23%</td>"), []byte("<td>24%</td>"), 1)
	if readable(t, "text/html", changed).SHA256 == full.SHA256 {
		t.Error("a changed rate kept the hash")
	}

	capped, err := extract.Readable("text/html", page, extract.Options{MaxChars: 400})
	if err != nil {
		t.Fatal(err)
	}
	if !capped.Truncated || utf8.RuneCountInString(capped.Content) > 400 || !strings.HasPrefix(full.Content, capped.Content) {
		t.Errorf("capped: truncated=%v, %d runes", capped.Truncated, utf8.RuneCountInString(capped.Content))
	}
	if !strings.HasPrefix(full.Content[len(capped.Content):], "\n") {
		t.Errorf("cut mid-line: ...%q", capped.Content[len(capped.Content)-30:])
	}
	if capped.SHA256 == full.SHA256 {
		t.Error("capped text kept the full text's hash")
	}

	// The cap counts characters, never splitting one.
	euros := strings.Repeat("€", 50)
	cut, err := extract.Readable("text/plain", []byte(euros), extract.Options{MaxChars: 7})
	if err != nil || cut.Content != "€€€€€€€" || !cut.Truncated || !utf8.ValidString(cut.Content) {
		t.Errorf("rune cap: %q %v %v", cut.Content, cut.Truncated, err)
	}

	// The default cap is 60k characters.
	long := strings.Repeat("Line of regulatory text.\n", 5000)
	def := readable(t, "text/plain", []byte(long))
	if !def.Truncated || utf8.RuneCountInString(def.Content) > extract.DefaultMaxChars || utf8.RuneCountInString(def.Content) < extract.DefaultMaxChars-100 {
		t.Errorf("default cap: truncated=%v, %d runes", def.Truncated, utf8.RuneCountInString(def.Content))
	}
}

func TestContainsQuote(t *testing.T) {
	benefit := readable(t, "text/html", fixture(t, "citizens-jobseekers-benefit.html")).Content
	vat := readable(t, "text/html", fixture(t, "revenue-vat-rates.html")).Content
	cases := []struct {
		text, quote string
		want        bool
	}{
		{benefit, "The maximum personal rate of Jobseeker's Benefit is €244 a week.", true},
		{benefit, "the MAXIMUM personal rate of jobseeker’s benefit is €244 a week", true},
		{benefit, "“The maximum personal rate of Jobseeker's Benefit is €244 a week”", true},
		{benefit, "€220 - €299.99", true},
		{benefit, "€220 — €299.99", true},
		{benefit, "104  weeks of PRSI\ncontributions paid", true},
		{benefit, "Be under 66 years of age", true},
		{benefit, "The maximum personal rate of Jobseeker's Benefit is €250 a week.", false},
		{benefit, "Be under 67 years of age", false},
		{vat, "Standard rate 23%", true},
		{vat, "Standard rate | 23%", true},
		{vat, "Livestock rate\u00a04.8%", true},
		{vat, "Reduced rate 13.5% Fuel for power and heat\u00ading", true},
		{vat, "Reduced rate 13,5%", false},
		{vat, "The standard rate of VAT is 21%", false},
		{vat, "every rate is 5%", false},
		{vat, "", false},
		{vat, "   ", false},
		{vat, "...", false},
		{vat, "ｓｔａｎｄａｒｄ ｒａｔｅ", true},
		{"", "anything", false},
	}
	for _, c := range cases {
		if got := extract.ContainsQuote(c.text, c.quote); got != c.want {
			t.Errorf("ContainsQuote(%q) = %v, want %v", c.quote, got, c.want)
		}
	}
}
