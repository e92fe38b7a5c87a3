package httpapi_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
)

// The demo page's libraries are served as vendored at the versions their
// lock pins: a version changed in package.json without `make web-vendor`
// fails here. Each file's licence header names its version.
func TestDemoPageServesTheVendoredLibrariesAtTheirPinnedVersions(t *testing.T) {
	raw, err := os.ReadFile("../../tools/web-vendor/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{demoPage: true})
	page := e.do(http.MethodGet, "/", nil)
	for _, lib := range []struct{ dependency, asset, header string }{
		{"marked", "marked.umd.js", "marked v"},
		{"dompurify", "purify.min.js", "DOMPurify "},
	} {
		version := pkg.Dependencies[lib.dependency]
		if version == "" || strings.ContainsAny(version, "^~<>*x ") {
			t.Errorf("%s: version %q in package.json, want an exact pin", lib.dependency, version)
			continue
		}
		r := e.do(http.MethodGet, "/assets/"+lib.asset, nil)
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/javascript") {
			t.Fatalf("GET /assets/%s: %d %s", lib.asset, r.Status, r.Header.Get("Content-Type"))
		}
		if head := r.Body[:min(len(r.Body), 300)]; !strings.Contains(head, lib.header+version+" ") {
			t.Errorf("/assets/%s is not %s %s: %q", lib.asset, lib.dependency, version, head)
		}
		if !strings.Contains(page.Body, `src="assets/`+lib.asset+`"`) {
			t.Errorf("the page does not load assets/%s", lib.asset)
		}
	}
}
