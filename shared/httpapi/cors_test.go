package httpapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"regintel/shared/auth"
	"regintel/shared/httpapi"
)

var updateCORS = flag.Bool("update-cors", false, "rewrite infra/cors.json from the routes table")

const appOrigin = "https://app.example.com"

// headerList splits a comma-separated header value.
func headerList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func containsFold(list []string, want string) bool {
	return slices.ContainsFunc(list, func(have string) bool { return strings.EqualFold(have, want) })
}

// What a browser app sends and reads, route by route, written from the API
// documentation rather than from the table, so a header missing from the
// table fails here.
type browserCall struct {
	method, pattern string
	sends           []string // besides the dev identity and X-Request-Id
	reads           []string // response headers the script reads
}

var browserCalls = []browserCall{
	{"GET", "/healthz", nil, nil},
	{"GET", "/readyz", nil, nil},
	{"GET", "/openapi.json", nil, nil},
	{"GET", "/openapi-3.1.json", nil, nil},
	{"POST", "/chat", []string{"Authorization", "Content-Type", "X-Stream-Protocol"}, []string{"X-Request-Id", "X-Vercel-AI-UI-Message-Stream", "X-Conversation-Id"}},
	{"GET", "/chat/{conversationId}/stream", []string{"Authorization", "X-Stream-Protocol", "Last-Event-ID"}, []string{"X-Request-Id", "X-Vercel-AI-UI-Message-Stream", "X-Conversation-Id"}},
	{"DELETE", "/chat/{conversationId}/stream", []string{"Authorization"}, []string{"X-Request-Id"}},
	{"POST", "/conversations/{id}/context-requests/{requestId}", []string{"Authorization", "Content-Type", "X-Stream-Protocol"}, []string{"X-Request-Id", "X-Conversation-Id"}},
	{"DELETE", "/conversations/{id}/context-items/{itemId}", []string{"Authorization"}, []string{"X-Request-Id"}},
	{"GET", "/conversations", []string{"Authorization"}, []string{"X-Request-Id"}},
	{"GET", "/conversations/{id}", []string{"Authorization"}, []string{"X-Request-Id"}},
	{"PATCH", "/conversations/{id}", []string{"Authorization", "Content-Type"}, []string{"X-Request-Id"}},
	{"DELETE", "/conversations/{id}", []string{"Authorization"}, []string{"X-Request-Id"}},
	{"GET", "/conversations/{id}/export", []string{"Authorization"}, []string{"X-Request-Id", "Content-Disposition"}},
	{"POST", "/conversations/{id}/turns/{n}/feedback", []string{"Authorization", "Content-Type"}, []string{"X-Request-Id"}},
	{"GET", "/graph/changes", []string{"Authorization", "Last-Event-ID"}, []string{"X-Request-Id"}},
	{"GET", "/graph/nodes", []string{"Authorization"}, []string{"X-Request-Id"}},
	{"POST", "/calculate", []string{"Authorization", "Content-Type"}, []string{"X-Request-Id"}},
}

func TestBrowserPreflightAllowsWhatEachRouteNeeds(t *testing.T) {
	routes := httpapi.Routes()
	handler := httpapi.New(httpapi.Options{Auth: auth.Dev{}, CORSOrigins: []string{appOrigin}, Log: quietLog()})
	srv := httptest.NewServer(checkedByContract(t, handler))
	defer srv.Close()

	for _, rt := range routes {
		if !slices.ContainsFunc(browserCalls, func(c browserCall) bool { return c.method == rt.Method && c.pattern == rt.Pattern }) {
			t.Errorf("route %s %s has no browser call in this test", rt.Method, rt.Pattern)
		}
	}
	for _, call := range browserCalls {
		// Behind IAM auth every call also carries the user's token in X-User-Authorization.
		sends := append([]string{"X-Request-Id", "X-Tenant-Id", "X-User-Id", "X-User-Authorization"}, call.sends...)
		req, _ := http.NewRequest(http.MethodOptions, srv.URL+concretePath(call.pattern), nil)
		req.Header.Set("Origin", appOrigin)
		req.Header.Set("Access-Control-Request-Method", call.method)
		req.Header.Set("Access-Control-Request-Headers", strings.ToLower(strings.Join(sends, ",")))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != appOrigin {
			t.Errorf("preflight %s %s: %d, origin %q", call.method, call.pattern, resp.StatusCode, h.Get("Access-Control-Allow-Origin"))
			continue
		}
		if h.Get("Access-Control-Max-Age") == "" {
			t.Errorf("preflight %s %s: no Access-Control-Max-Age, so the browser asks again before every call", call.method, call.pattern)
		}
		if methods := headerList(h.Get("Access-Control-Allow-Methods")); !slices.Contains(methods, call.method) {
			t.Errorf("preflight %s %s: methods %v", call.method, call.pattern, methods)
		}
		allowed := headerList(h.Get("Access-Control-Allow-Headers"))
		for _, name := range sends {
			if !containsFold(allowed, name) {
				t.Errorf("preflight %s %s: header %s not allowed (%v)", call.method, call.pattern, name, allowed)
			}
		}
		// The actual request: what the script reads is exposed.
		actual, _ := http.NewRequest(call.method, srv.URL+concretePath(call.pattern), nil)
		actual.Header.Set("Origin", appOrigin)
		got, err := http.DefaultClient.Do(actual)
		if err != nil {
			t.Fatal(err)
		}
		got.Body.Close()
		exposed := headerList(got.Header.Get("Access-Control-Expose-Headers"))
		if got.Header.Get("Access-Control-Allow-Origin") != appOrigin {
			t.Errorf("%s %s: no Access-Control-Allow-Origin", call.method, call.pattern)
		}
		for _, name := range append([]string{"X-Request-Id"}, call.reads...) {
			if !containsFold(exposed, name) {
				t.Errorf("%s %s: %s not exposed (%v)", call.method, call.pattern, name, exposed)
			}
		}
	}
}

func TestCORSRefusesOtherOriginsWithA403ThatSaysCORS(t *testing.T) {
	for name, origins := range map[string][]string{"other origin": {appOrigin}, "no origin configured": nil} {
		srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{Auth: auth.Dev{}, CORSOrigins: origins, Log: quietLog()})))
		req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/chat", nil)
		req.Header.Set("Origin", "https://evil.example.com")
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code, Message string }
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		srv.Close()
		if v := resp.Header.Get("Access-Control-Allow-Origin"); v != "" || resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, Access-Control-Allow-Origin %q", name, resp.StatusCode, v)
		}
		if body.Error.Code != "cors_origin_refused" || !strings.Contains(body.Error.Message, "CORS") {
			t.Errorf("%s: body %+v does not say CORS", name, body)
		}
	}
}

// infra/cors.json is the policy for the Function URL's CORS settings;
// `go generate ./shared/httpapi` rewrites it.
func TestCORSFileMatchesRoutes(t *testing.T) {
	// A stage may turn the compatibility routes on, so the policy allows them.
	routes := append(httpapi.Routes(), httpapi.CompatRoutes()...)
	want, err := json.MarshalIndent(httpapi.NewCORSPolicy(routes), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	path := filepath.Join("..", "..", "infra", "cors.json")
	if *updateCORS {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run go generate ./shared/httpapi", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("infra/cors.json differs from the routes table; run go generate ./shared/httpapi\nhave:\n%s\nwant:\n%s", got, want)
	}
}
