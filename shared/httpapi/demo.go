package httpapi

import (
	"embed"
	"net/http"
	"path"
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

func (a *API) demoPage(w http.ResponseWriter, r *http.Request) {
	a.serveWebFile(w, r, "index.html", "text/html; charset=utf-8")
}

func (a *API) demoAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	contentType, ok := demoAssets[name]
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "no such asset: "+name)
		return
	}
	a.serveWebFile(w, r, name, contentType)
}

func (a *API) serveWebFile(w http.ResponseWriter, r *http.Request, name, contentType string) {
	body, err := web.ReadFile(path.Join("web", name))
	if err != nil {
		a.log.Error("demo page file missing", "request_id", RequestID(r.Context()), "file", name, "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the demo page could not be read")
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	writeTagged(w, r, contentType, "no-cache", body)
}
