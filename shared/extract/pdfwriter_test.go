package extract_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateFixtures = flag.Bool("update", false, "rewrite testdata/vat-notice.pdf from the writer below")

// tinyPDF writes a small, valid PDF: one page per entry, each line drawn with
// the standard Helvetica font (WinAnsiEncoding) and positioned with Td, the
// way real generators lay out text. Written here, rather than checked in as
// an opaque binary, so the fixture's bytes can be reviewed and regenerated.
func tinyPDF(pages [][]string) []byte {
	var objects []string
	add := func(body string) int {
		objects = append(objects, body)
		return len(objects)
	}
	catalog := add("") // filled once the page tree's number is known
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, lines := range pages {
		var content strings.Builder
		content.WriteString("BT\n/F1 16 Tf\n72 770 Td\n")
		for i, line := range lines {
			if i == 1 {
				content.WriteString("/F1 11 Tf\n0 -28 Td\n")
			} else if i > 1 {
				content.WriteString("0 -16 Td\n")
			}
			fmt.Fprintf(&content, "(%s) Tj\n", pdfString(line))
		}
		content.WriteString("ET\n")
		stream := add(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>",
			pagesObj, font, stream))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objects[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objects[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))

	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, body := range objects {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, catalog, xref)
	return out.Bytes()
}

// pdfString escapes a literal string and encodes it in WinAnsiEncoding
// (ASCII plus the euro sign, all the fixture needs).
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '€':
			b.WriteString(`\200`)
		case r < 0x80:
			b.WriteRune(r)
		default:
			panic(fmt.Sprintf("pdfString: %q is not in the fixture's encoding", r))
		}
	}
	return b.String()
}

var vatNoticePages = [][]string{
	{
		"VAT Rates Notice",
		"Tax and Duty Manual - Value-Added Tax (VAT) rates",
		"The standard rate of VAT is 23% and applies to most goods and services.",
		"The reduced rate of 13.5% applies to fuel for power and heating and to building services.",
		"The second reduced rate of 9% applies to newspapers, e-books and sporting facilities.",
		"The livestock rate is 4.8%.",
	},
	{
		"Zero-rated supplies",
		"Zero-rated supplies (0%) include exports, most food and oral medicine.",
		"Effective from 1 January 2025. A late filing surcharge of up to €4,000 may apply.",
	},
}

func TestPDFFixtureMatchesTheWriter(t *testing.T) {
	want := tinyPDF(vatNoticePages)
	if *updateFixtures {
		if err := os.WriteFile("testdata/vat-notice.pdf", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("testdata/vat-notice.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("testdata/vat-notice.pdf differs from tinyPDF's output; run go test -run TestPDFFixture -update")
	}
}
