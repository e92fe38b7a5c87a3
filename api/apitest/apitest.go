// Package apitest holds the server to its OpenAPI document (api/openapi.yaml)
// in tests: every exchange through Contract.Checked is validated with
// kin-openapi (request, status, headers, JSON body, and each SSE frame's
// data against the contentSchema its event has in the media type's
// itemSchema). Contract also records which operations, events and chunks
// were seen, for coverage checks.
package apitest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"regintel/api"
)

// Contract is the loaded document and what the tests have shown of it.
type Contract struct {
	Doc    *openapi3.T
	router routers.Router

	mu   sync.Mutex
	seen map[string]bool // "GET /path", "event name", "chunk type"
}

// Load parses the embedded document.
func Load() (*Contract, error) {
	raw, err := api.JSON()
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, err
	}
	doc.Servers = nil // match paths on any host the tests listen on
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &Contract{Doc: doc, router: router, seen: map[string]bool{}}, nil
}

// MustLoad is Load failing t.
func MustLoad(t testing.TB) *Contract {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatalf("openapi document: %v", err)
	}
	return c
}

func (c *Contract) see(key string) {
	c.mu.Lock()
	c.seen[key] = true
	c.mu.Unlock()
}

// Seen reports whether a check met key: "GET /path", "event name" or
// "chunk type".
func (c *Contract) Seen(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[key]
}

// recordingWriter keeps a copy of the response while passing every write
// and flush through, so streams stay incremental.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recordingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type readCloser struct {
	io.Reader
	io.Closer
}

// Checked wraps next so every exchange is validated against the document;
// a mismatch fails t.
func (c *Contract) Checked(t testing.TB, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body is copied as the handler reads it, not before: a slow
		// body must reach the handler's read deadline. The handler gets a
		// copy of the request, so the server still sees its own body.
		var raw bytes.Buffer
		served := *r
		served.Body = readCloser{io.TeeReader(r.Body, &raw), r.Body}
		rec := &recordingWriter{ResponseWriter: w}
		next.ServeHTTP(rec, &served)
		if rec.status < 400 {
			_, _ = io.Copy(&raw, r.Body) // an accepted request is validated whole
		}
		body := rec.body.Bytes()
		if r.Context().Err() != nil && strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			body = completeFrames(body) // the client left, maybe mid-frame
		}
		r = r.Clone(context.Background())
		r.Body = io.NopCloser(bytes.NewReader(raw.Bytes()))
		for _, problem := range c.Check(r, rec.status, rec.Header(), body) {
			t.Errorf("contract: %s %s → %d: %s", r.Method, r.URL.Path, rec.status, problem)
		}
	})
}

// completeFrames drops an unterminated last frame.
func completeFrames(stream []byte) []byte {
	end := bytes.LastIndex(stream, []byte("\n\n"))
	if end < 0 {
		return nil
	}
	return stream[:end+2]
}

// Check validates one exchange and returns what disagrees with the document.
func (c *Contract) Check(r *http.Request, status int, header http.Header, body []byte) []string {
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		return nil // a CORS preflight, answered from the routes table
	}
	lookup := r.Clone(context.Background())
	if lookup.Method == http.MethodHead {
		lookup.Method = http.MethodGet
	}
	route, params, err := c.router.FindRoute(lookup)
	if err != nil || status == http.StatusMethodNotAllowed {
		// Not an operation: the server must say so as a JSON 404 or 405.
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return []string{"undocumented operation answered " + fmt.Sprint(status)}
		}
		return c.CheckSchema("Error", body)
	}
	c.see(route.Method + " " + route.Path)
	opts := &openapi3filter.Options{
		AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus:   true,
		MultiError:              true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020()},
	}
	reqInput := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	var problems []string
	if err := openapi3filter.ValidateRequest(context.Background(), reqInput); err != nil && status < 400 {
		problems = append(problems, "a request the document refuses was accepted: "+err.Error())
	}
	mediaType := strings.TrimSpace(strings.Split(header.Get("Content-Type"), ";")[0])
	respOpts := *opts
	respOpts.ExcludeResponseBody = mediaType != "application/json"
	err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &respOpts,
	})
	if err != nil {
		problems = append(problems, err.Error())
	}
	if mediaType == "text/event-stream" && status == http.StatusOK {
		problems = append(problems, c.checkStream(route, body)...)
	}
	return problems
}

// checkStream validates each frame against the media type's itemSchema:
// the schema of its data (contentSchema) is the one of the branch whose
// event it names ("message" when it names none).
func (c *Contract) checkStream(route *routers.Route, body []byte) []string {
	media := route.Operation.Responses.Status(http.StatusOK).Value.Content.Get("text/event-stream")
	events := EventSchemas(media)
	var problems []string
	for _, raw := range strings.Split(string(body), "\n\n") {
		f := ParseFrame(raw)
		if f.Data == "" || f.Data == "[DONE]" {
			continue
		}
		name := cmp.Or(f.Event, "message")
		schema, ok := events[name]
		if !ok {
			problems = append(problems, "undocumented event "+name)
			continue
		}
		var chunk struct{ Type string }
		_ = json.Unmarshal([]byte(f.Data), &chunk)
		if f.Event != "" {
			c.see("event " + name)
		} else if chunk.Type != "" {
			c.see("chunk " + chunk.Type)
		}
		problems = append(problems, prefixed(name, checkValue(schema, []byte(f.Data)))...)
	}
	return problems
}

// EventSchemas reads a text/event-stream media type's itemSchema: each
// branch (through if/then/else, oneOf and anyOf) that fixes the event
// name gives the schema of its data, its contentSchema.
func EventSchemas(media *openapi3.MediaType) map[string]*openapi3.SchemaRef {
	out := map[string]*openapi3.SchemaRef{}
	if media == nil || media.ItemSchema == nil {
		return out
	}
	var walk func(s *openapi3.Schema)
	walk = func(s *openapi3.Schema) {
		if s == nil {
			return
		}
		if s.Else != nil {
			walk(s.Else.Value)
		}
		for _, alt := range append(slices.Clone(s.OneOf), s.AnyOf...) {
			walk(alt.Value)
		}
		event, data := s.Properties["event"], s.Properties["data"]
		if event == nil || data == nil || data.Value.ContentSchema == nil {
			return
		}
		if name, ok := event.Value.Const.(string); ok {
			out[name] = data.Value.ContentSchema
		}
	}
	walk(media.ItemSchema.Value)
	return out
}

// ChunkTypes reads the UI message stream's chunk types from the
// UIMessageChunk schema: type → the chunk's schema.
func (c *Contract) ChunkTypes() map[string]*openapi3.SchemaRef {
	out := map[string]*openapi3.SchemaRef{}
	union := c.Doc.Components.Schemas["UIMessageChunk"]
	if union == nil {
		return out
	}
	for _, alt := range union.Value.OneOf {
		typ := alt.Value.Properties["type"]
		if typ == nil {
			continue
		}
		if name, ok := typ.Value.Const.(string); ok {
			out[name] = alt
		}
		for _, name := range typ.Value.Enum {
			if name, ok := name.(string); ok {
				out[name] = alt
			}
		}
	}
	return out
}

// checkValue validates JSON data against schema.
func checkValue(schema *openapi3.SchemaRef, data []byte) []string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return []string{"not JSON: " + string(data)}
	}
	if err := schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// CheckSchema validates JSON data against the named component schema.
func (c *Contract) CheckSchema(name string, data []byte) []string {
	ref := c.Doc.Components.Schemas[name]
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

func prefixed(prefix string, problems []string) []string {
	for i, p := range problems {
		problems[i] = prefix + ": " + p
	}
	return problems
}

// Frame is one server-sent event.
type Frame struct{ ID, Event, Data string }

// ParseFrame reads one event's lines (without the blank line ending it).
func ParseFrame(raw string) Frame {
	var f Frame
	for _, line := range strings.Split(raw, "\n") {
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			f.ID = v
		} else if v, ok := strings.CutPrefix(line, "event: "); ok {
			f.Event = v
		} else if v, ok := strings.CutPrefix(line, "data: "); ok {
			f.Data = v
		}
	}
	return f
}
