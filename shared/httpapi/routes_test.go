package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"regintel/shared/auth"
	"regintel/shared/httpapi"
)

// concretePath fills a route pattern's wildcards with a uuid.
func concretePath(pattern string) string {
	return regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(pattern, "6f0e1a4c-1111-4c4c-8888-123456789abc")
}

// errorOf decodes a JSON error body, failing when the response is not one.
func errorOf(t *testing.T, resp chatResponse) string {
	t.Helper()
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(resp.Body), &body); err != nil || body.Error.Code == "" || body.Error.Message == "" {
		t.Fatalf("status %d without a JSON error body: %s", resp.Status, resp.Body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error content type %q", ct)
	}
	return body.Error.Code
}

func TestEveryAuthRouteRefusesAnonymousCallers(t *testing.T) {
	// No default identity: a request without headers is unauthenticated.
	srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{Auth: auth.Dev{}, Log: quietLog()})))
	defer srv.Close()
	e := &env{t: t, server: srv}
	authRoutes := 0
	for _, rt := range httpapi.Routes() {
		resp := e.do(rt.Method, concretePath(rt.Pattern), nil)
		if !rt.Auth {
			if resp.Status == http.StatusUnauthorized {
				t.Errorf("%s %s is public but answered 401", rt.Method, rt.Pattern)
			}
			continue
		}
		authRoutes++
		if resp.Status != http.StatusUnauthorized || errorOf(t, resp) != "unauthorized" || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("anonymous %s %s: %d %s", rt.Method, rt.Pattern, resp.Status, resp.Body)
		}
	}
	if authRoutes < 10 {
		t.Fatalf("only %d routes require authentication", authRoutes)
	}
}

func TestWrongMethodIsJSON405WithAllowAndUnknownPathJSON404(t *testing.T) {
	srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{Auth: auth.Dev{DefaultTenant: "t", DefaultUser: "u"}, Log: quietLog()})))
	defer srv.Close()
	e := &env{t: t, server: srv}
	allowed := map[string][]string{}
	for _, rt := range httpapi.Routes() {
		allowed[rt.Pattern] = append(allowed[rt.Pattern], rt.Method)
	}
	for pattern, methods := range allowed {
		// OPTIONS without a preflight's headers is an ordinary request.
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions, http.MethodTrace, "PROPFIND"} {
			if slices.Contains(methods, method) {
				continue
			}
			resp := e.do(method, concretePath(pattern), nil)
			if resp.Status != http.StatusMethodNotAllowed || errorOf(t, resp) != "method_not_allowed" {
				t.Errorf("%s %s: %d %s", method, pattern, resp.Status, resp.Body)
				continue
			}
			allow := strings.Split(resp.Header.Get("Allow"), ", ")
			for _, m := range methods {
				if !slices.Contains(allow, m) || (m == http.MethodGet && !slices.Contains(allow, http.MethodHead)) {
					t.Errorf("%s %s: Allow %q lacks %s", method, pattern, resp.Header.Get("Allow"), m)
				}
			}
		}
	}
	for _, path := range []string{"/", "/nope", "/chat/extra", "/graph", "/conversations/a/b/c"} {
		resp := e.do(http.MethodGet, path, nil)
		if resp.Status != http.StatusNotFound || errorOf(t, resp) != "not_found" {
			t.Errorf("GET %s: %d %s", path, resp.Status, resp.Body)
		}
	}
}

func TestHealthAnswersGetAndHead(t *testing.T) {
	srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{Auth: auth.Dev{}, Log: quietLog()})))
	defer srv.Close()
	e := &env{t: t, server: srv}
	if resp := e.do(http.MethodGet, "/healthz", nil); resp.Status != http.StatusOK || !strings.Contains(resp.Body, `"status":"ok"`) {
		t.Fatalf("GET /healthz: %d %s", resp.Status, resp.Body)
	}
	if resp := e.do(http.MethodHead, "/healthz", nil); resp.Status != http.StatusOK {
		t.Fatalf("HEAD /healthz: %d", resp.Status)
	}
}

// A deployment without a part keeps its routes, answering 501, so a wiring
// mistake shows instead of the route vanishing into a 404.
func TestRouteWithoutItsDependencyAnswers501(t *testing.T) {
	srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{Auth: auth.Dev{DefaultTenant: "t", DefaultUser: "u"}, Log: quietLog()})))
	defer srv.Close()
	e := &env{t: t, server: srv}
	for _, rt := range httpapi.Routes() {
		// No dependency: liveness, readiness of what is configured, the document.
		if rt.Name == "health" || rt.Name == "ready" || rt.Name == "openapi" || rt.Name == "openapi31" {
			continue
		}
		resp := e.do(rt.Method, concretePath(rt.Pattern), map[string]any{"message": "hi"})
		if resp.Status != http.StatusNotImplemented || errorOf(t, resp) != "not_configured" {
			t.Errorf("%s %s without its dependency: %d %s", rt.Method, rt.Pattern, resp.Status, resp.Body)
		}
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
