package compat_test

// Every exchange of these tests is validated against api/openapi.yaml with
// kin-openapi: the request, the status, the JSON body, and each SSE frame's
// data (a named event by x-sse-events, an unnamed one by x-sse-data).

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"regintel/api"
)

type document struct {
	doc    *openapi3.T
	router routers.Router
}

func loadDocument(t testing.TB) *document {
	t.Helper()
	raw, err := api.JSON()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &document{doc: doc, router: router}
}

// recorder copies the response while passing writes and flushes through.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checked fails t for every exchange the document does not allow.
func (d *document) checked(t testing.TB, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		for _, problem := range d.check(r, rec.status, rec.Header(), rec.body.Bytes()) {
			t.Errorf("contract: %s %s → %d: %s", r.Method, r.URL.Path, rec.status, problem)
		}
	})
}

func (d *document) check(r *http.Request, status int, header http.Header, body []byte) []string {
	route, params, err := d.router.FindRoute(r.Clone(context.Background()))
	if err != nil || status == http.StatusMethodNotAllowed {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return []string{"undocumented operation answered " + http.StatusText(status)}
		}
		return d.checkSchema("Error", body)
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020()},
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	var problems []string
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && status < 400 {
		problems = append(problems, "a request the document refuses was accepted: "+err.Error())
	}
	mediaType := strings.TrimSpace(strings.Split(header.Get("Content-Type"), ";")[0])
	respOpts := *opts
	respOpts.ExcludeResponseBody = mediaType != "application/json"
	if err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &respOpts,
	}); err != nil {
		problems = append(problems, err.Error())
	}
	if mediaType == "text/event-stream" && status == http.StatusOK {
		problems = append(problems, d.checkStream(route, body)...)
	}
	return problems
}

// checkStream validates each complete frame's data.
func (d *document) checkStream(route *routers.Route, body []byte) []string {
	media := route.Operation.Responses.Status(http.StatusOK).Value.Content.Get("text/event-stream")
	events, _ := media.Extensions["x-sse-events"].(map[string]any)
	unnamed, _ := media.Extensions["x-sse-data"].(map[string]any)
	var problems []string
	frames := strings.Split(string(body), "\n\n")
	for _, frame := range frames[:len(frames)-1] { // the last may be cut off by the client
		ev := parseFrame(frame)
		if ev.data == "" || ev.data == "[DONE]" {
			continue
		}
		ref := unnamed
		if ev.name != "" {
			ref, _ = events[ev.name].(map[string]any)
		}
		name, _ := ref["$ref"].(string)
		if name == "" {
			problems = append(problems, "undocumented frame: "+frame)
			continue
		}
		problems = append(problems, d.checkSchema(strings.TrimPrefix(name, "#/components/schemas/"), []byte(ev.data))...)
	}
	return problems
}

func (d *document) checkSchema(name string, data []byte) []string {
	ref := d.doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		return []string{"no schema " + name}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return []string{"not JSON: " + string(data)}
	}
	if err := ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return []string{name + ": " + err.Error()}
	}
	return nil
}

type frame struct{ id, name, data string }

func parseFrame(raw string) frame {
	var f frame
	for _, line := range strings.Split(raw, "\n") {
		switch {
		case strings.HasPrefix(line, "id: "):
			f.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			f.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			f.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return f
}
