// Package httpapi is the HTTP surface of the backend as one http.Handler:
// under Lambda it runs through lambdaurl (Function URL, RESPONSE_STREAM),
// locally under net/http. Every route is a row of the routes table
// (Routes): the mux, authentication and the CORS policy are built from it.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/auth"
	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/httpapi/compat"
	"regintel/shared/tracing"
)

// Conversations is what the conversation routes need of the store: the
// caller's conversations, each read, changed, erased or exported whole.
type Conversations interface {
	ListConversations(ctx context.Context, tenantID string, q conversation.ListQuery) (conversation.Page, error)
	GetConversation(ctx context.Context, tenantID, conversationID string) (conversation.Detail, error)
	UpdateConversation(ctx context.Context, tenantID, conversationID string, u conversation.Update) (conversation.Conversation, error)
	DeleteConversation(ctx context.Context, tenantID, conversationID string) (conversation.Erased, error)
	ExportConversation(ctx context.Context, tenantID, conversationID string) (conversation.Export, error)
	SetTurnFeedback(ctx context.Context, tenantID, conversationID string, f conversation.Feedback) error
}

// redactedUpdates stores a conversation's title and persona as the
// engine stores chat text: redacted under PII_REDACTION store or both,
// whichever route changes them.
type redactedUpdates struct {
	Conversations
	engine *chat.Engine
}

func (r redactedUpdates) UpdateConversation(ctx context.Context, tenantID, conversationID string, u conversation.Update) (conversation.Conversation, error) {
	return r.Conversations.UpdateConversation(ctx, tenantID, conversationID, r.engine.StoredUpdate(u))
}

// Options wires the handler. A route whose dependency is nil answers 501,
// so a missing part shows instead of the route vanishing.
type Options struct {
	Auth   auth.Authenticator
	Engine *chat.Engine
	// Conversations serves the conversation routes.
	Conversations Conversations
	// Graph labels a conversation's active concepts and answers
	// GET /graph/nodes; nil leaves concepts unlabelled.
	Graph graph.Reader
	// GraphChanges feeds GET /graph/changes.
	GraphChanges graph.ChangeReader
	Feed         FeedConfig
	// KeepAlive is the longest silence on a stream before a keepalive
	// comment (default DefaultKeepAlive).
	KeepAlive time.Duration
	// DemoPage serves the demo page (DemoRoutes) beside the API.
	DemoPage bool
	// CompatAPI serves the reference web app's routes (CompatRoutes)
	// beside the API; Sharing keeps their sharing settings.
	CompatAPI bool
	Sharing   conversation.SharingStore
	// Now is the clock of export stamps and graph patches (default time.Now).
	Now func() time.Time
	// BodyReadTimeout bounds reading a request body (default
	// DefaultBodyReadTimeout).
	BodyReadTimeout time.Duration
	// RouteTimeout bounds every route that does not stream (default
	// DefaultRouteTimeout).
	RouteTimeout time.Duration
	// Readiness lists what GET /readyz checks (the database); none: ready.
	Readiness []ReadinessCheck
	// CORSOrigins are the browser origins that may call the API ("*": any),
	// answered from the same routes table (see cors); a preflight from any
	// other origin is refused.
	CORSOrigins []string
	// MaxStreamFollowers bounds the clients following one conversation's
	// stream at once (GET /chat/{id}/stream), on a store that keeps
	// followers (default DefaultMaxStreamFollowers).
	MaxStreamFollowers int
	Log                *slog.Logger
}

// API holds what route handlers share.
type API struct {
	auth          auth.Authenticator
	engine        *chat.Engine
	conversations Conversations
	graph         graph.Reader
	changes       graph.ChangeReader
	feed          FeedConfig
	keepAlive     time.Duration
	now           func() time.Time
	bodyTimeout   time.Duration
	routeTimeout  time.Duration
	readiness     []ReadinessCheck
	log           *slog.Logger
	sharing       conversation.SharingStore
	compat        *compat.Adapter
	maxFollowers  int
}

// New returns the API handler: one routes table, from which the mux and
// the CORS policy are both built.
func New(o Options) http.Handler {
	a := &API{
		auth: o.Auth, engine: o.Engine, conversations: o.Conversations,
		graph: o.Graph, changes: o.GraphChanges, feed: o.Feed.withDefaults(),
		keepAlive: o.KeepAlive, now: o.Now, log: o.Log, sharing: o.Sharing,
		bodyTimeout: o.BodyReadTimeout, routeTimeout: o.RouteTimeout, readiness: o.Readiness,
		maxFollowers: o.MaxStreamFollowers,
	}
	if a.maxFollowers <= 0 {
		a.maxFollowers = DefaultMaxStreamFollowers
	}
	if a.conversations != nil && a.engine != nil {
		a.conversations = redactedUpdates{Conversations: a.conversations, engine: a.engine}
	}
	if a.bodyTimeout <= 0 {
		a.bodyTimeout = DefaultBodyReadTimeout
	}
	if a.routeTimeout <= 0 {
		a.routeTimeout = DefaultRouteTimeout
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.keepAlive <= 0 {
		a.keepAlive = DefaultKeepAlive
	}
	if a.now == nil {
		a.now = time.Now
	}
	routes := Routes()
	if o.DemoPage {
		routes = append(routes, DemoRoutes()...)
	}
	if o.CompatAPI {
		a.compat = a.newCompat()
		routes = append(routes, CompatRoutes()...)
	}
	return cors(o.CORSOrigins, routes)(a.withRequestID(a.mux(routes)))
}

type requestIDKey struct{}

// clientRequestID is the X-Request-Id a client may choose: it goes into
// every log line and back in a header, so no spaces, quotes, control
// characters or log-line look-alikes.
var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// RequestID returns the id of the request: Lambda's request id under
// Lambda, else the client's X-Request-Id, else a new one.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

func (a *API) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ""
		if lc, ok := lambdacontext.FromContext(r.Context()); ok {
			id = lc.AwsRequestID
		}
		if id == "" {
			if h := r.Header.Get("X-Request-Id"); clientRequestID.MatchString(h) {
				id = h
			} else {
				id = uuid.NewString()
			}
		}
		w.Header().Set("X-Request-Id", id)
		start := time.Now()
		ctx, span := requestSpan(r, id)
		r = r.WithContext(context.WithValue(ctx, requestIDKey{}, id))
		rec := &recordingWriter{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		// The mux has set the matched route ("POST /chat") by now.
		if r.Pattern != "" {
			span.SetName(r.Pattern)
		}
		span.End()
		a.log.Info("request", "request_id", id, "method", r.Method, "path", r.URL.Path, "status", rec.statusCode(),
			"bytes", rec.bytes, "duration_ms", time.Since(start).Milliseconds())
	})
}

// requestSpan starts the request's span, in the caller's trace when the
// request carries a traceparent header.
func requestSpan(r *http.Request, requestID string) (context.Context, trace.Span) {
	if !tracing.On() {
		return r.Context(), trace.SpanFromContext(r.Context())
	}
	parent := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	return tracing.StartRoot(parent, r.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("request_id", requestID)))
}

func (a *API) health(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// recordingWriter notes the status and body size of a response for the
// access log. Unwrap lets http.ResponseController reach the writer below
// (to flush a stream, to set deadlines).
type recordingWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusCode is the status sent, or 200 for a handler that wrote nothing.
func (w *recordingWriter) statusCode() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
