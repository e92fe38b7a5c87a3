package sources_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"regintel/shared/sources"
)

func official(t testing.TB, opts sources.Options) *sources.Catalog {
	t.Helper()
	c, err := sources.New(opts)
	if err != nil {
		t.Fatalf("embedded catalog: %v", err)
	}
	return c
}

func TestEmbeddedCatalogCoversEachJurisdictionAndDomain(t *testing.T) {
	c := official(t, sources.Options{MaxSources: 50})
	for _, host := range []string{"revenue.ie", "gov.ie", "citizensinformation.ie", "irishstatutebook.ie",
		"gov.uk", "legislation.gov.uk", "hmrc.gov.uk", "eur-lex.europa.eu", "taxation-customs.ec.europa.eu"} {
		if !slices.Contains(c.Hosts(), host) {
			t.Errorf("allowlist lacks %s", host)
		}
	}
	cases := []sources.Request{
		{Domain: "TAX", Jurisdiction: "IE", Kind: "VAT"},
		{Domain: "TAX", Jurisdiction: "IE", Kind: "VRT"},
		{Domain: "TAX", Jurisdiction: "IE", Kind: "USC"},
		{Domain: "TAX", Jurisdiction: "IE", Kind: "CGT"},
		{Domain: "SOCIAL_WELFARE", Jurisdiction: "IE", Kind: "JOBSEEKERS_BENEFIT"},
		{Domain: "PENSIONS", Jurisdiction: "IE", Kind: "STATE_PENSION_CONTRIBUTORY"},
		{Domain: "TAX", Jurisdiction: "UK", Kind: "VAT"},
		{Domain: "SOCIAL_WELFARE", Jurisdiction: "UK", Kind: "UNIVERSAL_CREDIT"},
		{Domain: "PENSIONS", Jurisdiction: "UK", Kind: "STATE_PENSION"},
		{Domain: "TAX", Jurisdiction: "EU", Kind: "VAT_DIRECTIVE"},
		{Domain: "SOCIAL_WELFARE", Jurisdiction: "EU", Kind: "COORDINATION"},
	}
	for _, r := range cases {
		got := c.Select(r)
		if len(got) == 0 {
			t.Errorf("%s:%s:%s has no configured source", r.Domain, r.Jurisdiction, r.Kind)
		}
		for _, u := range got {
			if !strings.HasPrefix(u, "https://") || !c.IsOfficial(u) {
				t.Errorf("%s:%s:%s selected %q", r.Domain, r.Jurisdiction, r.Kind, u)
			}
		}
	}
}

func TestSelectKeepsOnlyOfficialJobURLsAndAddsConfigured(t *testing.T) {
	c := official(t, sources.Options{})
	got := c.Select(sources.Request{
		ConceptID: "TAX:IE:VAT", Domain: "TAX", Kind: "VAT", Jurisdiction: "IE",
		SourceURLs: []string{
			"https://www.revenue.ie/en/vat/vat-on-services/index.aspx#place",
			"http://www.revenue.ie/en/vat/index.aspx",
			"https://evil.example/revenue.ie",
			"https://revenue.ie.evil.example/en/vat/",
			"https://evilrevenue.ie/en/vat/",
			"https://user@www.revenue.ie/en/vat/",
			"https://www.revenue.ie:8443/en/vat/",
			"ftp://www.revenue.ie/en/vat/",
			"file:///etc/passwd",
			"https://169.254.169.254/latest/meta-data/",
			"https://WWW.Revenue.IE./en/vat/vat-on-services/index.aspx",
			"not a url",
		},
	})
	want := []string{
		"https://www.revenue.ie/en/vat/vat-on-services/index.aspx",
		"https://www.revenue.ie/en/vat/vat-rates/index.aspx",
		"https://www.revenue.ie/en/vat/index.aspx",
		"https://www.citizensinformation.ie/en/money-and-tax/tax/duties-and-vat/value-added-tax/",
		"https://www.irishstatutebook.ie/eli/2010/act/31/enacted/en/html",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Select =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSelectCapsAndReservesRoomForConfiguredSources(t *testing.T) {
	c := official(t, sources.Options{})
	var mine []string
	for _, p := range []string{"a", "b", "c", "d", "e", "f"} {
		mine = append(mine, "https://www.gov.uk/"+p)
	}
	got := c.Select(sources.Request{Domain: "TAX", Jurisdiction: "UK", Kind: "VAT", SourceURLs: mine})
	want := []string{"https://www.gov.uk/a", "https://www.gov.uk/b", "https://www.gov.uk/c",
		"https://www.gov.uk/vat-rates", "https://www.gov.uk/how-vat-works"}
	if !slices.Equal(got, want) {
		t.Errorf("Select = %v, want %v", got, want)
	}

	// Without configured sources the job's URLs fill every slot.
	got = c.Select(sources.Request{Domain: "NOPE", Jurisdiction: "ZZ", Kind: "NOPE", SourceURLs: mine})
	if !slices.Equal(got, mine[:sources.DefaultMaxSources]) {
		t.Errorf("Select without configured sources = %v", got)
	}
}

func TestSelectMatchesKindBeforeDomainAndFallsBackToConceptID(t *testing.T) {
	c := official(t, sources.Options{MaxSources: 10})
	got := c.Select(sources.Request{ConceptID: "SOCIAL_WELFARE:IE:JOBSEEKERS_BENEFIT"})
	if len(got) < 3 || got[0] != "https://www.citizensinformation.ie/en/social-welfare/unemployed-people/jobseekers-benefit/" {
		t.Fatalf("Select by concept id = %v", got)
	}
	if !slices.Contains(got, "https://www.citizensinformation.ie/en/social-welfare/") {
		t.Errorf("domain-level source missing: %v", got)
	}
	if slices.Index(got, "https://www.citizensinformation.ie/en/social-welfare/") < slices.Index(got, "https://www.gov.ie/en/service/c86d7f-jobseekers-benefit/") {
		t.Errorf("domain-level source ranked before kind-specific: %v", got)
	}

	// A VRT concept filed under another domain still finds the VRT pages;
	// lower-case and aliased inputs normalise like canonical ids.
	got = c.Select(sources.Request{Domain: "vehicle reg", Jurisdiction: "ie", Kind: "vrt"})
	if len(got) == 0 || got[0] != "https://www.revenue.ie/en/vrt/index.aspx" {
		t.Errorf("VRT sources = %v", got)
	}
	gb := c.Select(sources.Request{Domain: "tax", Jurisdiction: "GB", Kind: "VAT"})
	if len(gb) == 0 || gb[0] != "https://www.gov.uk/vat-rates" {
		t.Errorf("GB alias sources = %v", gb)
	}

	// A kind-specific entry never leaks into another kind's result.
	usc := c.Select(sources.Request{Domain: "TAX", Jurisdiction: "IE", Kind: "USC"})
	if slices.Contains(usc, "https://www.revenue.ie/en/vat/vat-rates/index.aspx") {
		t.Errorf("USC got VAT pages: %v", usc)
	}
	if got := c.Select(sources.Request{}); len(got) != 0 {
		t.Errorf("empty request selected %v", got)
	}
}

func TestAllows(t *testing.T) {
	c := official(t, sources.Options{})
	cases := map[string]bool{
		"https://www.revenue.ie/x":                true,
		"https://revenue.ie/x":                    true,
		"https://a.b.revenue.ie/x":                true,
		"https://REVENUE.IE./x":                   true,
		"https://revenue.ie:443/x":                true,
		"https://revenue.ie:444/x":                false,
		"https://evilrevenue.ie/x":                false,
		"https://revenue.ie.evil.example/x":       false,
		"https://revenue%2eie/x":                  false,
		"https://user:pw@revenue.ie/x":            false,
		"https://127.0.0.1/x":                     false,
		"https://localhost/x":                     false,
		"https://[::1]/x":                         false,
		"https://europa.eu/x":                     false,
		"https://ec.europa.eu/x":                  false,
		"https://taxation-customs.ec.europa.eu/x": true,
	}
	for raw, want := range cases {
		u, err := url.Parse(raw)
		if err != nil {
			if want {
				t.Errorf("%s: %v", raw, err)
			}
			continue
		}
		if got := c.Allows(u); got != want {
			t.Errorf("Allows(%s) = %v, want %v", raw, got, want)
		}
	}
}

func TestTestHostsExtendTheAllowlistOnlyWhenConfigured(t *testing.T) {
	c := official(t, sources.Options{
		ExtraHostsForTests: []string{"127.0.0.1:8443", "official.test"},
		ExtraSourcesForTests: []sources.Source{{Jurisdiction: "IE", Kinds: []string{"VAT"},
			URLs: []string{"https://127.0.0.1:8443/vat-rates.html"}}},
	})
	for raw, want := range map[string]bool{
		"https://127.0.0.1:8443/a":        true,
		"https://127.0.0.1:8444/a":        false,
		"https://127.0.0.1/a":             false,
		"https://official.test/a":         true,
		"https://www.official.test/a":     true,
		"https://official.test:8443/a":    false,
		"https://notofficial.test/a":      false,
		"https://www.revenue.ie/anything": true,
	} {
		u, _ := url.Parse(raw)
		if got := c.Allows(u); got != want {
			t.Errorf("Allows(%s) = %v, want %v", raw, got, want)
		}
	}
	got := c.Select(sources.Request{ConceptID: "TAX:IE:VAT"})
	if !slices.Contains(got, "https://127.0.0.1:8443/vat-rates.html") {
		t.Errorf("test source not selected: %v", got)
	}
}

func TestParseRejectsUnsafeData(t *testing.T) {
	bad := map[string]string{
		"ip in data":         `{"allowlist":[{"host":"127.0.0.1"}],"sources":[]}`,
		"tld":                `{"allowlist":[{"host":"ie"}],"sources":[]}`,
		"url as host":        `{"allowlist":[{"host":"https://gov.ie/"}],"sources":[]}`,
		"empty allowlist":    `{"allowlist":[],"sources":[]}`,
		"source off list":    `{"allowlist":[{"host":"gov.ie"}],"sources":[{"jurisdiction":"IE","domains":["TAX"],"urls":["https://gov.uk/x"]}]}`,
		"http source":        `{"allowlist":[{"host":"gov.ie"}],"sources":[{"jurisdiction":"IE","domains":["TAX"],"urls":["http://gov.ie/x"]}]}`,
		"match-all source":   `{"allowlist":[{"host":"gov.ie"}],"sources":[{"jurisdiction":"IE","urls":["https://gov.ie/x"]}]}`,
		"not json":           `{`,
		"no jurisdiction":    `{"allowlist":[{"host":"gov.ie"}],"sources":[{"domains":["TAX"],"urls":["https://gov.ie/x"]}]}`,
		"source without url": `{"allowlist":[{"host":"gov.ie"}],"sources":[{"jurisdiction":"IE","domains":["TAX"]}]}`,
	}
	for name, data := range bad {
		if _, err := sources.Parse([]byte(data), sources.Options{}); err == nil {
			t.Errorf("%s: Parse accepted %s", name, data)
		}
	}
	if _, err := sources.Parse([]byte(`{"allowlist":[{"host":"gov.ie"}]}`), sources.Options{ExtraHostsForTests: []string{"localhost"}}); err == nil {
		t.Error("single-label test host accepted")
	}
}

// TestSourceURLKeepsOfficialPagesOnly: the form of a URL the shared graph
// may store. Look-alike hosts, plain http and non-URLs are refused; query
// parameters survive only where the host's entry lists them.
func TestSourceURLKeepsOfficialPagesOnly(t *testing.T) {
	c := official(t, sources.Options{})
	for _, tc := range []struct{ in, want string }{
		{"https://www.revenue.ie/en/vat/index.aspx", "https://www.revenue.ie/en/vat/index.aspx"},
		{"https://WWW.Revenue.IE:443/en/vat/#rates", "https://www.revenue.ie/en/vat/"},
		{"https://revenue.ie", "https://revenue.ie/"},
		{"https://www.revenue.ie/en/vat/?email=jane.roe%40example.com&utm_source=x", "https://www.revenue.ie/en/vat/"},
		{"https://www.revenue.ie/en/vat/?", "https://www.revenue.ie/en/vat/"},
		{"https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32006L0112&qid=123", "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX%3A32006L0112"},
		{"https://www.revenue.ie.evil.example/", ""},
		{"https://revenue.ie.evil.example/en/vat/", ""},
		{"https://evilrevenue.ie/", ""},
		{"https://www.revenue.ie@evil.example/", ""},
		{"https://user:pw@www.revenue.ie/", ""},
		{"http://www.revenue.ie/en/vat/", ""},
		{"https://www.revenue.ie:8443/en/vat/", ""},
		{"https://xn--revenue-9ya.ie/", ""},
		{"https://www.revenue.ie%2eevil.example/", ""},
		{"https://127.0.0.1/", ""},
		{"javascript:alert(1)", ""},
		{"//www.revenue.ie/en/", ""},
		{"www.revenue.ie/en/", ""},
	} {
		got, ok := c.SourceURL(tc.in)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("SourceURL(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// FuzzSourceURL: what SourceURL keeps is an https URL on the allowlist,
// without credentials or fragment, keeps its own stored form, and carries
// only query parameters its host lists.
func FuzzSourceURL(f *testing.F) {
	for _, seed := range []string{"https://www.revenue.ie/en/vat/index.aspx", "https://www.revenue.ie.evil.example/",
		"https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32006L0112&qid=1", "https://user@www.gov.ie/", "https://www.gov.uk/x?a=1#f"} {
		f.Add(seed)
	}
	c := official(f, sources.Options{})
	f.Fuzz(func(t *testing.T, raw string) {
		stored, ok := c.SourceURL(raw)
		if !ok {
			return
		}
		u, err := url.Parse(stored)
		if err != nil || u.Scheme != "https" || u.User != nil || u.Fragment != "" || !c.Allows(u) || !c.IsOfficial(stored) {
			t.Fatalf("SourceURL(%q) = %q", raw, stored)
		}
		if again, ok := c.SourceURL(stored); !ok || again != stored {
			t.Fatalf("SourceURL(%q) = %q, then %q", raw, stored, again)
		}
		for k := range u.Query() {
			if k != "uri" || !strings.HasSuffix(u.Hostname(), "eur-lex.europa.eu") {
				t.Fatalf("SourceURL(%q) = %q keeps query key %q", raw, stored, k)
			}
		}
	})
}
