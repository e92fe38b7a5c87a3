package pii

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// splitAnswers are answers with one item of personal data each, which the
// tests cut into pieces at every place.
var splitAnswers = map[Kind]string{
	KindIBAN:    "Refunds go to IE29 AIBK 9311 5212 3456 78 within ten days of the claim.",
	KindEmail:   "Write to mary.obrien@example.ie and say which year the claim covers.",
	KindPhone:   "The office rang 087 123 4567 about the refund yesterday afternoon.",
	KindPPSN:    "Your PPSN 1234567FA appears on the statement of liability.",
	KindCard:    "The card 4111 1111 1111 1111 was charged the filing fee.",
	KindEircode: "The property at D02 X285 is your principal private residence.",
	KindName:    "The letter was written by Dr Aoife Byrne about the relief.",
}

// streamed feeds text to a Stream in pieces of size n, takes what is
// decided after each piece, and returns every recorded part.
func streamed(text string, n int) []string {
	var s Stream
	var parts []string
	for i := 0; i < len(text); i += n {
		s.Write(text[i:min(i+n, len(text))])
		if _, red := s.Next(false); red != "" {
			parts = append(parts, red)
		}
	}
	if _, red := s.Next(true); red != "" {
		parts = append(parts, red)
	}
	return parts
}

// Whatever the pieces, no recorded part holds any of the item in plain
// text, and the parts together are the text redacted whole.
func TestStreamRecordsNoItemSplitAcrossPieces(t *testing.T) {
	for kind, text := range splitAnswers {
		whole, kinds := Redact(text)
		if len(kinds) != 1 || kinds[0] != kind {
			t.Fatalf("%s: the whole answer redacts as %v, want %s", kind, kinds, kind)
		}
		for n := 1; n <= len(text); n++ {
			parts := streamed(text, n)
			if got := strings.Join(parts, ""); got != whole {
				t.Fatalf("%s in pieces of %d: recorded %q, want %q (parts %q)", kind, n, got, whole, parts)
			}
		}
	}
}

// Items written in words or hidden in tag characters run longer than
// their digits: in pieces of every size, the record is still the text
// redacted whole.
func TestStreamRecordsRewrittenItemsWhole(t *testing.T) {
	hidden := ""
	for _, r := range "jane.roe@example.ie" {
		hidden += string(0xE0000 + r)
	}
	for _, text := range []string{
		"You can reach me on oh eight seven one two three four five six seven most evenings after work.",
		"The card is four one one one one one one one one one one one one one one one and it was charged the fee.",
		"Write to jane dot roe at example dot com and say which year the claim covers in the letter.",
		"The address is " + hidden + " for the letters about the claim for the relief.",
		"I was born on the fifth of March nineteen eighty-two and I claim the relief this year.",
	} {
		whole, kinds := Redact(text)
		if len(kinds) != 1 {
			t.Fatalf("%q redacts as %v", text, kinds)
		}
		for n := 1; n <= len(text); n++ {
			if got := strings.Join(streamed(text, n), ""); got != whole {
				t.Fatalf("in pieces of %d: recorded %q, want %q", n, got, whole)
			}
		}
	}
}

// A long answer is decided as it grows, not only at its end, and never
// holds back more than HoldBytes, a step and a word.
func TestStreamDecidesAsTheAnswerGrows(t *testing.T) {
	var s Stream
	sentence := "The relief applies for each year of assessment in which the conditions are met "
	for range 40 {
		s.Write(sentence)
		s.Decide(false)
		if most := HoldBytes + minStep + len("assessment "); s.Undecided() > most {
			t.Fatalf("%d bytes held back, want at most %d", s.Undecided(), most)
		}
	}
	if len(s.Redacted()) == 0 {
		t.Fatal("nothing decided before the end")
	}
	// A sentence end decides at once.
	var done Stream
	done.Write("The claim is made online. Then")
	if raw, _ := done.Next(false); raw != "The claim is made online. " {
		t.Fatalf("decided %q at a sentence end", raw)
	}
}

// benchAnswer is regulatory text of about size bytes with an item of
// personal data every kilobyte.
func benchAnswer(size int) string {
	items := []string{"087 123 4567", "mary.obrien@example.ie", "IE29 AIBK 9311 5212 3456 78", "1234567FA"}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		b.WriteString("The standard rate of VAT is 23% from 1 January 2025 under section 46 of the Value-Added Tax Consolidation Act 2010. ")
		b.WriteString("Relief of €1,270 applies for the year of assessment, and the reduced rate is 13.5% for the supplies listed in Schedule 3. ")
		if i%4 == 3 {
			fmt.Fprintf(&b, "Contact %s about it. ", items[i/4%len(items)])
		}
	}
	return b.String()[:size]
}

// cpuMark is the process CPU time when a benchmark started.
type cpuMark struct {
	at time.Duration
	ok bool
}

func startCPU() cpuMark { at, ok := processCPU(); return cpuMark{at, ok} }

// report adds the CPU time per KB (cpu-ns/KB): with other work on the
// machine it is the steadier measure of the code's cost.
func (m cpuMark) report(b *testing.B, kb int) {
	if now, ok := processCPU(); ok && m.ok {
		b.ReportMetric(float64((now-m.at).Nanoseconds())/float64(b.N)/float64(kb), "cpu-ns/KB")
	}
}

// BenchmarkRedact: redacting a whole answer. Its ns/KB should be the same
// at every size (report the 64KB/1KB ratio of ns/KB, or of cpu-ns/KB on a
// busy machine).
func BenchmarkRedact(b *testing.B) {
	for _, kb := range []int{1, 4, 16, 64} {
		text := benchAnswer(kb << 10)
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			cpu := startCPU()
			for b.Loop() {
				Redact(text)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(kb), "ns/KB")
			cpu.report(b, kb)
		})
	}
}

// BenchmarkStream: an answer streamed in 12-byte pieces, decided after
// every fourth piece as the recorder does on its tick, then stored. Its
// ns/KB should be the same at every size.
func BenchmarkStream(b *testing.B) {
	for _, kb := range []int{1, 4, 16, 64} {
		text := benchAnswer(kb << 10)
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			cpu := startCPU()
			for b.Loop() {
				var s Stream
				for i, piece := 0, 0; i < len(text); i, piece = i+12, piece+1 {
					s.Write(text[i:min(i+12, len(text))])
					if piece%4 == 3 {
						s.Next(false)
					}
				}
				s.Next(true)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(kb), "ns/KB")
			cpu.report(b, kb)
		})
	}
}

// BenchmarkOfflineAnswers: the five answers the offline model gives to
// make loadtest's questions (URLs, node ids, dates and rates), decided as
// BenchmarkStream decides, in one 8 KB text.
func BenchmarkOfflineAnswers(b *testing.B) {
	raw, err := os.ReadFile("testdata/offline-answers.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := string(raw)
	b.SetBytes(int64(len(text)))
	cpu := startCPU()
	for b.Loop() {
		var s Stream
		s.Write(text)
		s.Next(true)
	}
	kb := max(1, len(text)>>10)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(kb), "ns/KB")
	cpu.report(b, kb)
}
