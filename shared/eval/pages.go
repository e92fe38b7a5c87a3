package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// pagesJSON is what official pages state, as read through the search
// tool: per page its address, the day it was read and the values it
// states (values only, none of the page's sentences).
//
//go:embed testdata/pages.json
var pagesJSON []byte

// StoredPage is the kept record of one official page.
type StoredPage struct {
	URL    string        `json:"url"`
	ReadOn string        `json:"readOn"`
	Values []StatedValue `json:"values"`
	// Complete is true when the copy read covers the page's whole table
	// of values: only then can it show that the page does not state one.
	Complete bool `json:"complete"`
}

// StatedValue is one value a page states.
type StatedValue struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Pages maps a page's address (see pageKey) to what it states.
type Pages map[string]StoredPage

// StoredPages loads the page records kept with the package.
func StoredPages() (Pages, error) { return ParsePages(pagesJSON) }

// ParsePages decodes page records: each an address, a read date and at
// least one value with a unit.
func ParsePages(data []byte) (Pages, error) {
	var doc struct {
		Note  string       `json:"note"`
		Pages []StoredPage `json:"pages"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("stored pages: %w", err)
	}
	out := Pages{}
	for _, p := range doc.Pages {
		key := pageKey(p.URL)
		switch {
		case key == "" || !IsOfficialSource(p.URL):
			return nil, fmt.Errorf("stored pages: %q is not an official https page", p.URL)
		case !isDate(p.ReadOn):
			return nil, fmt.Errorf("stored pages: %s: readOn %q is not an ISO date", p.URL, p.ReadOn)
		case len(p.Values) == 0:
			return nil, fmt.Errorf("stored pages: %s states no value", p.URL)
		}
		for _, v := range p.Values {
			if !validUnit(v.Unit) {
				return nil, fmt.Errorf("stored pages: %s: unit %q", p.URL, v.Unit)
			}
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("stored pages: %s appears twice", p.URL)
		}
		out[key] = p
	}
	return out, nil
}

// pageKey is an address without what does not change the page: the
// scheme, a "www." prefix, a trailing slash and a fragment.
func pageKey(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	key := host + path
	if u.RawQuery != "" {
		key += "?" + u.RawQuery
	}
	return key
}

// Lookup is the stored record of raw's page, if one is kept.
func (p Pages) Lookup(raw string) (StoredPage, bool) {
	page, ok := p[pageKey(raw)]
	return page, ok
}

// States reports whether the page states v in a unit matching unit.
func (p StoredPage) States(v float64, unit string) bool {
	for _, s := range p.Values {
		if sameNumber(s.Value, v) && (unitsMatch(s.Unit, unit) || unitsMatch(unit, s.Unit)) {
			return true
		}
	}
	return false
}
