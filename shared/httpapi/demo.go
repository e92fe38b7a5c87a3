package httpapi

import (
	"embed"
	"fmt"
	"net/http"
	"path"

	"regintel/shared/httpapi/reply"
)

// web holds the demo page: plain HTML, JavaScript and CSS, no build step.
//
//go:embed web
var web embed.FS

// demoAssets are the files GET /assets/{name} serves, with their types.
var demoAssets = map[string]string{
	"app.js":    "text/javascript; charset=utf-8",
	"style.css": "text/css; charset=utf-8",
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
	contentType, ok := demoAssets[name]
	if !ok {
		return reply.NotFound.With("no such asset: " + name)
	}
	return serveWebFile(w, r, name, contentType)
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
