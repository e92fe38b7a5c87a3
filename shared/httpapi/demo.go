package httpapi

import (
	"embed"
	"fmt"
	"net/http"
	"path"

	"regintel/shared/httpapi/reply"
)

// web holds the demo page: plain HTML, JavaScript and CSS, and in vendor/
// the browser builds of its pinned libraries (copied there by `make
// web-vendor`, committed), so nothing is built at run time.
//
//go:embed web
var web embed.FS

// demoAssetFile is a file GET /assets/{name} serves: its path under web/ and
// its type.
type demoAssetFile struct {
	file, contentType string
}

const (
	javaScript = "text/javascript; charset=utf-8"
	css        = "text/css; charset=utf-8"
)

// demoAssets are the files GET /assets/{name} serves, by name.
var demoAssets = map[string]demoAssetFile{
	"app.js":        {"app.js", javaScript},
	"style.css":     {"style.css", css},
	"marked.umd.js": {"vendor/marked.umd.js", javaScript},
	"purify.min.js": {"vendor/purify.min.js", javaScript},
}

// DemoRoutes are the demo page's routes, served beside the API when
// Options.DemoPage is on (locally by default, on Lambda only when the stage
// enables it). The page calls the API like any other client: from its own
// origin, or from another one given a base URL and a token.
func DemoRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Pattern: "/{$}", Name: "demoPage", Handler: (*API).demoPage},
		{Method: http.MethodGet, Pattern: "/assets/{name}", Name: "demoAsset", Handler: (*API).demoAsset},
	}
}

func (a *API) demoPage(w http.ResponseWriter, r *http.Request) error {
	return serveWebFile(w, r, "index.html", "text/html; charset=utf-8")
}

func (a *API) demoAsset(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	asset, ok := demoAssets[name]
	if !ok {
		return reply.NotFound.With("no such asset: " + name)
	}
	return serveWebFile(w, r, asset.file, asset.contentType)
}

func serveWebFile(w http.ResponseWriter, r *http.Request, name, contentType string) error {
	body, err := web.ReadFile(path.Join("web", name))
	if err != nil {
		return fmt.Errorf("demo page file %s: %w", name, err)
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	writeTagged(w, r, contentType, "no-cache", body)
	return nil
}
