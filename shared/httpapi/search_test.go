package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// GET /conversations?q= lists the caller's conversations holding every
// word in the title or a turn's text, ignoring case, page by page; a blank
// or over-long q is a 400.
func TestListSearchesTitlesAndTurns(t *testing.T) {
	for name, memory := range map[string]bool{"postgres": false, "memory": true} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{memory: memory})
			byTurns := f.seedTurns("untitled") // "What is the VAT rate?", "And for food?"
			byTitle := f.create(tenantA, userA, "Food VAT in Ireland")
			f.create(tenantA, userA, "Pensions")
			theirs := f.create(tenantB, userA, "VAT for food")
			for q, want := range map[string][]string{
				"vat":          {byTurns.ID, byTitle.ID},
				"FOOD vat":     {byTurns.ID, byTitle.ID},
				"ireland food": {byTitle.ID},
				"rate?":        {byTurns.ID},
				"pensions vat": nil,
			} {
				var got []string
				path := "/conversations?limit=1&q=" + url.QueryEscape(q)
				for pages := 0; path != ""; pages++ {
					if pages > 5 {
						t.Fatalf("q=%q: pagination does not end", q)
					}
					resp := f.get(path, tenantA)
					if resp.status != http.StatusOK {
						t.Fatalf("GET %s: %d %s", path, resp.status, resp.body)
					}
					var page listBody
					resp.decode(t, &page)
					for _, c := range page.Conversations {
						got = append(got, c.ID)
					}
					path = ""
					if page.NextCursor != nil {
						path = "/conversations?limit=1&q=" + url.QueryEscape(q) + "&cursor=" + *page.NextCursor
					}
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) || slices.Contains(got, theirs.ID) {
					t.Errorf("q=%q: %v, want %v", q, got, want)
				}
			}
			for _, q := range []string{"", "%20%20", strings.Repeat("a", 201), "vat%01"} {
				resp := f.get("/conversations?q="+q, tenantA)
				if resp.status != http.StatusBadRequest || resp.errorCode(t) != "invalid_request" {
					t.Errorf("q=%q: %d %s, want 400 invalid_request", q, resp.status, resp.body)
				}
			}
		})
	}
}
