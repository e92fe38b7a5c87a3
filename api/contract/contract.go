// Package contract holds the server to its OpenAPI document
// (api/openapi.yaml): Check validates an exchange with kin-openapi
// (request, status, headers, JSON body, and each SSE frame's data against
// the contentSchema its event has in the media type's itemSchema) and
// records which operations, events and chunks were seen. It is a module of
// its own so kin-openapi stays out of the functions' module graph; the
// main module's tests reach it through cmd/contractcheck (api/apitest).
package contract

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"regintel/api"
	"regintel/api/apitest"
)

// Contract is the loaded document and what the checks have shown of it.
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

// CheckExchange validates an exchange as the main module's tests send it.
func (c *Contract) CheckExchange(x apitest.Exchange) ([]string, error) {
	r, err := http.NewRequest(x.Method, "http://"+x.Host+x.Target, bytes.NewReader(x.Body))
	if err != nil {
		return nil, err
	}
	r.Header = x.Header
	if r.Header == nil {
		r.Header = http.Header{}
	}
	return c.Check(r, x.Status, x.RespHeader, x.RespBody), nil
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
		f := apitest.ParseFrame(raw)
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

// Expected lists what the main module's HTTP tests must show: every
// operation, event and chunk, except the compatibility routes (they have
// their own contract test) and stream parts only planned or retiring
// (x-stream-change).
func (c *Contract) Expected() []string {
	var out []string
	for path, item := range c.Doc.Paths.Map() {
		for method, op := range item.Operations() {
			if _, compat := op.Extensions["x-compat"]; !compat {
				out = append(out, method+" "+path)
			}
		}
	}
	stream := c.Doc.Components.Responses["ChatStream"].Value.Content.Get("text/event-stream")
	kinds := []struct {
		prefix  string
		schemas map[string]*openapi3.SchemaRef
	}{{"event ", EventSchemas(stream)}, {"chunk ", c.ChunkTypes()}}
	for _, kind := range kinds {
		for name, schema := range kind.schemas {
			if _, changing := schema.Value.Extensions["x-stream-change"]; changing {
				continue
			}
			out = append(out, kind.prefix+name)
		}
	}
	out = append(out, "event graph_patch")
	sort.Strings(out)
	return out
}

// Unseen lists the expected keys no check has met.
func (c *Contract) Unseen() []string {
	var unseen []string
	for _, key := range c.Expected() {
		if !c.Seen(key) {
			unseen = append(unseen, key)
		}
	}
	return unseen
}

// Serve answers the checker's protocol: one JSON apitest.Request a line
// on in, one apitest.Reply a line on out, until in ends.
func (c *Contract) Serve(in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(bufio.NewReader(in))
	enc := json.NewEncoder(out)
	for {
		var req apitest.Request
		if err := dec.Decode(&req); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("read a request: %w", err)
		}
		var reply apitest.Reply
		switch {
		case req.Exchange != nil:
			problems, err := c.CheckExchange(*req.Exchange)
			reply.Problems = problems
			if err != nil {
				reply.Err = err.Error()
			}
		case req.Unseen:
			reply.Unseen = c.Unseen()
		default:
			reply.Err = "an empty request"
		}
		if err := enc.Encode(reply); err != nil {
			return err
		}
	}
}
