package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"regintel/shared/llm/llmtest"
	"regintel/shared/testenv"
)

// TestLambdaTurnIsExportedAsOneTrace runs the real bootstrap under the
// runtime emulator with TRACING=on and an OTLP/HTTP receiver: each
// invocation's spans arrive, as OTLP JSON, before the invocation returns,
// and a turn's spans (request, Postgres, model call) form one trace under
// the request span.
//
// The emulator does not hand the function the X-Ray header it is invoked
// with (Lambda does), so joining Lambda's segment is tested in
// shared/tracing, against aws-lambda-go's context key.
func TestLambdaTurnIsExportedAsOneTrace(t *testing.T) {
	testenv.BuildsBinary(t)
	dbURL, _ := migratedDatabase(t)
	fake := llmtest.NewServer(t)
	fake.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Restaurant meals are charged at the 13.5% reduced rate."))})
	receiverURL, received := newTraceReceiver(t)

	invokeURL, logs := startUnderEmulator(t, lambdaEnv(fake.BaseURL(), dbURL,
		"TRACING=on", "OTEL_EXPORTER_OTLP_ENDPOINT="+receiverURL, "TRACING_SAMPLE_RATIO=1"))
	turn, err := os.ReadFile("../../events/chat-turn.json")
	if err != nil {
		t.Fatal(err)
	}

	// Each invocation flushes its spans before it returns, so what the
	// receiver has once the invoke answers is all there is.
	invokeWhenReady(t, invokeURL, healthEvent(t, turn), logs)
	if spans := received(); len(spans) != 1 || spans["GET /healthz"].Service != "chat" {
		t.Fatalf("after the health check the receiver has %v, want its request span\nlogs:\n%s", spans, logs.String())
	}
	body := invokeWhenReady(t, invokeURL, turn, logs)
	if !bytes.Contains(body, []byte("event: done")) {
		t.Fatalf("turn answered %q\nlogs:\n%s", body, logs.String())
	}
	checkOneTurnTrace(t, received())
}

// newTraceReceiver is an OTLP/HTTP receiver's URL and a function that
// returns the spans it has received so far, by name.
func newTraceReceiver(t *testing.T) (string, func() map[string]exportedSpan) {
	t.Helper()
	var mu sync.Mutex
	var exports [][]byte
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" && r.Header.Get("Content-Type") == "application/json" {
			mu.Lock()
			exports = append(exports, body)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(receiver.Close)
	return receiver.URL, func() map[string]exportedSpan {
		mu.Lock()
		defer mu.Unlock()
		return exportedSpans(t, exports)
	}
}

// checkOneTurnTrace: the request span is the root of the turn's trace, and
// every span but the health check's is in it, from chat, among them a model
// call and a Postgres span.
func checkOneTurnTrace(t *testing.T, spans map[string]exportedSpan) {
	t.Helper()
	request := spans["POST /chat"]
	if request.Name == "" || request.ParentSpanID != "" {
		t.Fatalf("request span %+v, want the root of the turn's trace; spans %v", request, spans)
	}
	var postgres bool
	for name, s := range spans {
		postgres = postgres || strings.HasPrefix(name, "postgres")
		if name != "GET /healthz" && (s.TraceID != request.TraceID || s.Service != "chat") {
			t.Errorf("span %q in trace %s from %q, want the turn's trace %s, chat", name, s.TraceID, s.Service, request.TraceID)
		}
	}
	if spans["llm call"].Name == "" || !postgres {
		t.Errorf("no model call or Postgres span among %v", spans)
	}
}

type exportedSpan struct {
	Name, TraceID, ParentSpanID, Service string
}

// exportedSpans reads the OTLP JSON requests: spans by name, with their
// resource's service.name.
func exportedSpans(t *testing.T, bodies [][]byte) map[string]exportedSpan {
	t.Helper()
	spans := map[string]exportedSpan{}
	for _, body := range bodies {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string
						Value struct{ StringValue string }
					}
				}
				ScopeSpans []struct {
					Spans []struct{ Name, TraceID, ParentSpanID string }
				}
			}
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatalf("export %s: %v", body, err)
		}
		for _, rs := range req.ResourceSpans {
			service := ""
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.StringValue
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans[s.Name] = exportedSpan{s.Name, s.TraceID, s.ParentSpanID, service}
				}
			}
		}
	}
	return spans
}

// healthEvent is the turn's Function URL event turned into GET /healthz.
func healthEvent(t *testing.T, turn []byte) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(turn, &ev); err != nil {
		t.Fatal(err)
	}
	ev["rawPath"], ev["body"] = "/healthz", ""
	httpCtx := ev["requestContext"].(map[string]any)["http"].(map[string]any)
	httpCtx["method"], httpCtx["path"] = "GET", "/healthz"
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
