package eval_test

import (
	"strings"
	"testing"

	"regintel/shared/eval"
)

// The key is the sources', not the dataset's: every item carries a value,
// a unit and the official page it was read from, and where a copy of that
// page is kept, the page states the value. Nothing here compares the key
// with the dataset; `make eval` reports where they differ.
func TestEveryKeyValueIsStatedByItsSource(t *testing.T) {
	pages, err := eval.StoredPages()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for split, load := range map[string]func() ([]eval.Item, error){eval.SplitDev: eval.Dev, eval.SplitHeldout: eval.Heldout} {
		items, err := load()
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if other, dup := ids[it.ID]; dup {
				t.Errorf("%s is in both %s and %s", it.ID, other, split)
			}
			ids[it.ID] = split
			page, kept := pages.Lookup(it.SourceURL)
			if kept && !page.States(*it.Value, it.Unit) {
				t.Errorf("%s %s: %s (read %s) does not state %v %s", split, it.ID, it.SourceURL, page.ReadOn, *it.Value, it.Unit)
			}
		}
	}
}

// heldout has at least 40 questions, and questions that name their date in
// the ways people do.
func TestHeldoutShape(t *testing.T) {
	items, err := eval.Heldout()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) < 40 {
		t.Fatalf("heldout has %d questions, want at least 40", len(items))
	}
	jurisdictions := map[string]bool{}
	for _, it := range items {
		for _, j := range it.Jurisdictions {
			jurisdictions[j] = true
		}
		if it.Series != "" {
			t.Errorf("%s names a dataset series: heldout is written without the dataset's labels", it.ID)
		}
	}
	for _, j := range []string{"IE", "UK", "EU"} {
		if !jurisdictions[j] {
			t.Errorf("no heldout question about %s", j)
		}
	}
}

func TestParseKeyRefusesInconsistentItems(t *testing.T) {
	const good = `"id":"a","question":"q","jurisdictions":["IE"],"expectedAsOf":"2023-07-01","value":23,"unit":"%","sourceUrl":"https://www.revenue.ie/en/vat/","readOn":"2026-11-28"`
	if _, err := eval.ParseKey([]byte(`{"items":[{` + good + `}]}`)); err != nil {
		t.Fatalf("a good item refused: %v", err)
	}
	for name, item := range map[string]string{
		"no value":           strings.Replace(good, `"value":23,`, ``, 1),
		"no unit":            strings.Replace(good, `"unit":"%"`, `"unit":""`, 1),
		"unknown unit":       strings.Replace(good, `"unit":"%"`, `"unit":"euros"`, 1),
		"unofficial source":  strings.Replace(good, `https://www.revenue.ie/en/vat/`, `https://example.com/vat`, 1),
		"plain http source":  strings.Replace(good, `https://www.revenue.ie`, `http://www.revenue.ie`, 1),
		"no read date":       strings.Replace(good, `"readOn":"2026-11-28"`, `"readOn":""`, 1),
		"bad date":           strings.Replace(good, `2023-07-01`, `2023-02-30`, 1),
		"bad relative date":  strings.Replace(good, `"2023-07-01"`, `"today-2w"`, 1),
		"asOf differs":       `"asOf":"2023-01-01",` + good,
		"unknown field":      good + `,"abstain":true`,
		"no id and question": strings.Replace(good, `"id":"a","question":"q",`, ``, 1),
	} {
		if _, err := eval.ParseKey([]byte(`{"items":[{` + item + `}]}`)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := eval.ParseKey([]byte(`{"items":[{` + good + `},{` + good + `}]}`)); err == nil {
		t.Error("a repeated id was accepted")
	}
}

func TestParsePagesRefusesBadRecords(t *testing.T) {
	for name, doc := range map[string]string{
		"unofficial":   `{"pages":[{"url":"https://example.com/x","readOn":"2026-11-28","values":[{"value":1,"unit":"%"}]}]}`,
		"no values":    `{"pages":[{"url":"https://www.revenue.ie/x","readOn":"2026-11-28","values":[]}]}`,
		"bad unit":     `{"pages":[{"url":"https://www.revenue.ie/x","readOn":"2026-11-28","values":[{"value":1,"unit":"pc"}]}]}`,
		"no read date": `{"pages":[{"url":"https://www.revenue.ie/x","values":[{"value":1,"unit":"%"}]}]}`,
		"twice":        `{"pages":[{"url":"https://www.revenue.ie/x","readOn":"2026-11-28","values":[{"value":1,"unit":"%"}]},{"url":"https://revenue.ie/x/","readOn":"2026-11-28","values":[{"value":1,"unit":"%"}]}]}`,
		"sentences":    `{"pages":[{"url":"https://www.revenue.ie/x","readOn":"2026-11-28","text":"The rate is 1%.","values":[{"value":1,"unit":"%"}]}]}`,
	} {
		if _, err := eval.ParsePages([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
