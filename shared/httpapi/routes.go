package httpapi

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"regintel/shared/auth"
	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/httpapi/compat"
	"regintel/shared/httpapi/reply"
)

// Route is one row of the routes table.
type Route struct {
	// Method is GET, POST, PUT, PATCH or DELETE; a GET route also answers HEAD.
	Method string
	// Pattern is the ServeMux path pattern, with {wildcards}.
	Pattern string
	// Auth: the caller must authenticate; the handler reads the identity
	// with CallerFrom.
	Auth bool
	// Name names the handler.
	Name string
	// RequestHeaders are the headers the route reads beyond the common ones
	// (Authorization, Content-Type, X-Request-Id and the dev identity).
	RequestHeaders []string
	// ExposeHeaders are response headers a browser script may read.
	ExposeHeaders []string
	// Streams: the route answers with an event stream, which no route
	// timeout bounds; every other route answers JSON within the route
	// timeout or gets a 504.
	Streams bool
	// Handler serves the route. An error it returns is written by the
	// router (see fail); a handler that has started a stream returns nil
	// and ends the stream with an error event instead.
	Handler func(a *API, w http.ResponseWriter, r *http.Request) error

	needs dependency
}

// dependency is the part of Options a route cannot answer without.
type dependency int

const (
	needsNothing dependency = iota
	needsEngine
	needsConversations
	needsGraph
	// needsSeries: a graph that reads fact series (the calculators).
	needsSeries
	needsGraphChanges
	// needsSharing: the conversations and their sharing settings.
	needsSharing
	// needsStreams: the engine, over a store that records turn streams.
	needsStreams
)

// Header names the routes read or expose.
const (
	HeaderStreamProtocol  = "X-Stream-Protocol"
	HeaderLastEventID     = "Last-Event-ID"
	HeaderUIMessageStream = "X-Vercel-AI-UI-Message-Stream"
	// HeaderConversationID names the conversation of a streamed turn.
	HeaderConversationID = "X-Conversation-Id"
	// HeaderWorkflowRunID names it too, for the AI SDK's
	// WorkflowChatTransport, which reconnects to /chat/{it}/stream.
	HeaderWorkflowRunID = "X-Workflow-Run-Id"
	// HeaderUserAuthorization carries the user's bearer token behind a
	// Function URL with IAM auth (JWT_HEADER), where SigV4 owns Authorization.
	HeaderUserAuthorization = "X-User-Authorization"
)

// Routes is the routes table: every route of the API.
func Routes() []Route {
	streamed := []string{HeaderStreamProtocol}
	uiStream := []string{HeaderUIMessageStream, HeaderConversationID, HeaderWorkflowRunID}
	return []Route{
		{Method: http.MethodGet, Pattern: "/healthz", Name: "health", Handler: (*API).health},
		{Method: http.MethodGet, Pattern: "/readyz", Name: "ready", Handler: (*API).ready},
		{Method: http.MethodGet, Pattern: "/openapi.json", Name: "openapi", Handler: (*API).openAPI},
		{Method: http.MethodGet, Pattern: "/openapi-3.1.json", Name: "openapi31", Handler: (*API).openAPI31},
		{Method: http.MethodPost, Pattern: "/chat", Auth: true, Name: "chat", Handler: (*API).chat, Streams: true,
			RequestHeaders: streamed, ExposeHeaders: uiStream, needs: needsEngine},
		{Method: http.MethodGet, Pattern: "/chat/{conversationId}/stream", Auth: true, Name: "resumeChatStream", Handler: (*API).resumeStream,
			Streams: true, RequestHeaders: []string{HeaderStreamProtocol, HeaderLastEventID}, ExposeHeaders: uiStream, needs: needsStreams},
		{Method: http.MethodDelete, Pattern: "/chat/{conversationId}/stream", Auth: true, Name: "stopChatStream", Handler: (*API).stopStream,
			needs: needsStreams},
		{Method: http.MethodPost, Pattern: "/conversations/{id}/context-requests/{requestId}", Auth: true, Name: "supplyContext",
			Handler: (*API).supplyContext, Streams: true, RequestHeaders: streamed, ExposeHeaders: uiStream, needs: needsEngine},
		{Method: http.MethodDelete, Pattern: "/conversations/{id}/context-items/{itemId}", Auth: true, Name: "deleteContextItem",
			Handler: (*API).deleteContextItem, needs: needsEngine},
		{Method: http.MethodGet, Pattern: "/conversations", Auth: true, Name: "listConversations",
			Handler: (*API).listConversations, needs: needsConversations},
		{Method: http.MethodGet, Pattern: "/conversations/{id}", Auth: true, Name: "getConversation",
			Handler: (*API).getConversation, needs: needsConversations},
		{Method: http.MethodPatch, Pattern: "/conversations/{id}", Auth: true, Name: "updateConversation",
			Handler: (*API).updateConversation, needs: needsConversations},
		{Method: http.MethodDelete, Pattern: "/conversations/{id}", Auth: true, Name: "deleteConversation",
			Handler: (*API).deleteConversation, needs: needsConversations},
		{Method: http.MethodGet, Pattern: "/conversations/{id}/export", Auth: true, Name: "exportConversation",
			Handler: (*API).exportConversation, ExposeHeaders: []string{"Content-Disposition"}, needs: needsConversations},
		{Method: http.MethodPost, Pattern: "/conversations/{id}/turns/{n}/feedback", Auth: true, Name: "setTurnFeedback",
			Handler: (*API).setTurnFeedback, needs: needsConversations},
		{Method: http.MethodGet, Pattern: "/graph/changes", Auth: true, Name: "graphChanges",
			Handler: (*API).graphChanges, Streams: true, RequestHeaders: []string{HeaderLastEventID}, needs: needsGraphChanges},
		{Method: http.MethodGet, Pattern: "/graph/nodes", Auth: true, Name: "graphNodes",
			Handler: (*API).graphNodes, needs: needsGraph},
		{Method: http.MethodPost, Pattern: "/calculate", Auth: true, Name: "calculate",
			Handler: (*API).calculate, needs: needsSeries},
	}
}

// CompatRoutes are the reference web app's routes, served beside the API
// when Options.CompatAPI is on (locally by default, on Lambda only when the
// stage enables it). Their handlers are the compat package's adapter.
func CompatRoutes() []Route {
	adapter := func(h func(*compat.Adapter, http.ResponseWriter, *http.Request) error) func(*API, http.ResponseWriter, *http.Request) error {
		return func(a *API, w http.ResponseWriter, r *http.Request) error { return h(a.compat, w, r) }
	}
	notSupported := adapter((*compat.Adapter).NotSupported)
	streamed := []string{HeaderStreamProtocol}
	uiStream := []string{HeaderUIMessageStream, HeaderConversationID}
	get, post, put, patch, del := http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete
	return []Route{
		{Method: post, Pattern: "/api/chat", Auth: true, Name: "compatChat", Handler: (*API).chat, Streams: true,
			RequestHeaders: streamed, ExposeHeaders: uiStream, needs: needsEngine},
		{Method: get, Pattern: "/api/conversations", Auth: true, Name: "compatListConversations",
			Handler: adapter((*compat.Adapter).ListConversations), needs: needsSharing},
		{Method: get, Pattern: "/api/conversations/stream", Auth: true, Name: "compatConversationStream",
			Handler: adapter((*compat.Adapter).StreamConversations), Streams: true, needs: needsSharing},
		{Method: get, Pattern: "/api/conversations/{id}", Auth: true, Name: "compatGetConversation",
			Handler: adapter((*compat.Adapter).GetConversation), needs: needsSharing},
		{Method: patch, Pattern: "/api/conversations/{id}", Auth: true, Name: "compatUpdateConversation",
			Handler: adapter((*compat.Adapter).UpdateConversation), needs: needsSharing},
		{Method: get, Pattern: "/api/conversations/{id}/paths", Auth: true, Name: "compatListPaths",
			Handler: adapter((*compat.Adapter).ListPaths), needs: needsSharing},
		{Method: post, Pattern: "/api/conversations/{id}/paths", Auth: true, Name: "compatCreatePath",
			Handler: notSupported},
		{Method: get, Pattern: "/api/conversations/{id}/paths/{pathId}", Auth: true, Name: "compatGetPath",
			Handler: adapter((*compat.Adapter).GetPath), needs: needsSharing},
		{Method: patch, Pattern: "/api/conversations/{id}/paths/{pathId}", Auth: true, Name: "compatUpdatePath",
			Handler: notSupported},
		{Method: del, Pattern: "/api/conversations/{id}/paths/{pathId}", Auth: true, Name: "compatDeletePath",
			Handler: notSupported},
		{Method: get, Pattern: "/api/conversations/{id}/paths/{pathId}/messages", Auth: true, Name: "compatPathMessages",
			Handler: adapter((*compat.Adapter).PathMessages), needs: needsSharing},
		{Method: post, Pattern: "/api/conversations/{id}/paths/{pathId}/merge", Auth: true, Name: "compatMergePath",
			Handler: notSupported},
		{Method: post, Pattern: "/api/conversations/{id}/paths/{pathId}/merge/preview", Auth: true, Name: "compatPreviewMerge",
			Handler: notSupported},
		{Method: get, Pattern: "/api/conversations/{id}/active-path", Auth: true, Name: "compatGetActivePath",
			Handler: adapter((*compat.Adapter).GetActivePath), needs: needsSharing},
		{Method: put, Pattern: "/api/conversations/{id}/active-path", Auth: true, Name: "compatSetActivePath",
			Handler: adapter((*compat.Adapter).SetActivePath), needs: needsSharing},
		{Method: post, Pattern: "/api/conversations/{id}/branch", Auth: true, Name: "compatBranch",
			Handler: notSupported},
		{Method: post, Pattern: "/api/conversations/{id}/messages/{messageId}/pin", Auth: true, Name: "compatPinMessage",
			Handler: notSupported},
		{Method: del, Pattern: "/api/conversations/{id}/messages/{messageId}/pin", Auth: true, Name: "compatUnpinMessage",
			Handler: notSupported},
		{Method: get, Pattern: "/api/graph", Auth: true, Name: "compatGraphNodes",
			Handler: adapter((*compat.Adapter).GraphNodes), needs: needsGraph},
		{Method: get, Pattern: "/api/graph/stream", Auth: true, Name: "compatGraphStream",
			Handler: (*API).compatGraphStream, Streams: true, RequestHeaders: []string{HeaderLastEventID}, needs: needsGraphChanges},
	}
}

// mux registers every route under "METHOD PATTERN". Each path also answers
// the other common methods with a JSON 405 with Allow (ServeMux's own is
// plain text), and any other path is a JSON 404.
func (a *API) mux(routes []Route) *http.ServeMux {
	mux := http.NewServeMux()
	var paths []string
	allowed := map[string][]string{}
	served := map[string]bool{}
	for _, rt := range routes {
		mux.Handle(rt.Method+" "+rt.Pattern, a.handler(rt))
		served[rt.Method+" "+rt.Pattern] = true
		if _, seen := allowed[rt.Pattern]; !seen {
			paths = append(paths, rt.Pattern)
		}
		allowed[rt.Pattern] = append(allowed[rt.Pattern], rt.Method)
		if rt.Method == http.MethodGet {
			allowed[rt.Pattern] = append(allowed[rt.Pattern], http.MethodHead)
		}
	}
	// The 405s are registered per method, not as one method-less pattern,
	// so a fixed path ("/api/conversations/stream") may sit beside a
	// wildcard one with other methods ("/api/conversations/{id}").
	for _, p := range paths {
		methods := allowed[p]
		for _, m := range answeredMethods {
			if !slices.Contains(methods, m) {
				mux.HandleFunc(m+" "+p, func(w http.ResponseWriter, _ *http.Request) { methodNotAllowed(w, methods...) })
			}
		}
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if methods := allowedOn(mux, served, r); len(methods) > 0 {
			methodNotAllowed(w, methods...)
			return
		}
		writeError(w, reply.NotFound.With("no such route: "+r.URL.Path))
	})
	return mux
}

// answeredMethods are the methods a known path answers with 405 when it
// does not serve them; any other method (OPTIONS, TRACE, an invented one)
// reaches the catch-all, which answers 405 too when the path is known.
var answeredMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowedOn is the methods mux serves on r's path, asked method by method
// (served holds the routes' own patterns, not the 405s); none: the path is
// unknown.
func allowedOn(mux *http.ServeMux, served map[string]bool, r *http.Request) []string {
	var allowed []string
	for _, m := range answeredMethods {
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host, Header: http.Header{}}
		if _, pattern := mux.Handler(probe); served[pattern] {
			allowed = append(allowed, m)
		}
	}
	return allowed
}

// handler wraps the route's handler in authentication (Auth routes) and
// the route timeout (routes that do not stream), and answers 501 when its
// dependency is not configured.
func (a *API) handler(rt Route) http.Handler {
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := rt.Handler(a, w, r); err != nil {
			a.fail(w, r, rt.Name, err)
		}
	})
	if !a.provides(rt.needs) {
		h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeError(w, reply.NotConfigured) })
	}
	if !rt.Streams {
		h = a.withRouteTimeout(h, a.routeTimeout)
	}
	if rt.Auth {
		h = a.authenticated(h)
	}
	return h
}

func (a *API) provides(d dependency) bool {
	switch d {
	case needsEngine:
		return a.engine != nil
	case needsConversations:
		return a.conversations != nil
	case needsGraph:
		return a.graph != nil
	case needsSeries:
		_, ok := a.graph.(graph.SeriesReader)
		return ok
	case needsGraphChanges:
		return a.changes != nil
	case needsSharing:
		return a.conversations != nil && a.sharing != nil
	case needsStreams:
		return a.engine != nil && a.engine.Streams() != nil
	}
	return true
}

type callerKey struct{}

// CallerFrom returns the authenticated caller of an Auth route's request.
func CallerFrom(ctx context.Context) (auth.Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(auth.Caller)
	return c, ok
}

// caller is CallerFrom for handlers, which run only behind authenticated.
func caller(r *http.Request) auth.Caller {
	c, _ := CallerFrom(r.Context())
	return c
}

// authenticated verifies the caller, or answers 401, before next runs.
func (a *API) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := a.auth.Authenticate(r)
		if err != nil {
			if !errors.Is(err, auth.ErrUnauthenticated) {
				a.log.Error("authentication error", "request_id", RequestID(r.Context()), "err", err)
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="regintel"`)
			writeError(w, reply.Unauthorized)
			return
		}
		// The store acts for the caller: their conversations and no one else's.
		ctx := conversation.WithOwner(context.WithValue(r.Context(), callerKey{}, c), c.UserID)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// methodNotAllowed sends a JSON 405 naming the allowed methods.
func methodNotAllowed(w http.ResponseWriter, allowed ...string) {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	writeError(w, reply.MethodNotAllowed.With("use "+strings.Join(allowed, " or ")))
}

// routeMethods is the union of the table's methods, in table order.
func routeMethods(routes []Route) []string {
	var out []string
	for _, rt := range routes {
		if !slices.Contains(out, rt.Method) {
			out = append(out, rt.Method)
		}
	}
	return out
}
