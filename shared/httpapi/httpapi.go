// Package httpapi is the HTTP surface of the backend as one http.Handler:
// under Lambda it runs through lambdaurl (Function URL, RESPONSE_STREAM),
// locally under net/http.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/google/uuid"

	"regintel/shared/auth"
	"regintel/shared/chat"
)

// MaxBodyBytes bounds a request body (256 KiB).
const MaxBodyBytes = 256 << 10

// Options wires the handler.
type Options struct {
	Auth   auth.Authenticator
	Engine *chat.Engine
	Log    *slog.Logger
	// Routes adds further routes (conversation API, graph feed) to the mux.
	Routes func(mux *http.ServeMux, a *API)
}

// API holds what route handlers share.
type API struct {
	auth   auth.Authenticator
	engine *chat.Engine
	log    *slog.Logger
}

// New returns the API handler.
func New(o Options) http.Handler {
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	a := &API{auth: o.Auth, engine: o.Engine, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", a.health)
	mux.HandleFunc("/chat", a.chat)
	a.handoffRoutes(mux)
	if o.Routes != nil {
		o.Routes(mux, a)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, "not_found", "no such route: "+r.URL.Path)
	})
	return a.withRequestID(mux)
}

type requestIDKey struct{}

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
			if h := r.Header.Get("X-Request-Id"); h != "" && len(h) <= 128 {
				id = h
			} else {
				id = uuid.NewString()
			}
		}
		w.Header().Set("X-Request-Id", id)
		start := time.Now()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
		a.log.Info("request", "request_id", id, "method", r.Method, "path", r.URL.Path, "duration_ms", time.Since(start).Milliseconds())
	})
}

func (a *API) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		MethodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// MethodNotAllowed sends a JSON 405 naming the allowed methods (ServeMux's
// own 405 is plain text).
func MethodNotAllowed(w http.ResponseWriter, allowed ...string) {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	WriteError(w, http.StatusMethodNotAllowed, "method_not_allowed", "use "+strings.Join(allowed, " or "))
}

// Authenticate verifies the caller or writes a 401 and returns false.
func (a *API) Authenticate(w http.ResponseWriter, r *http.Request) (auth.Caller, bool) {
	caller, err := a.auth.Authenticate(r)
	if err != nil {
		if !errors.Is(err, auth.ErrUnauthenticated) {
			a.log.Error("authentication error", "request_id", RequestID(r.Context()), "err", err)
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="regintel"`)
		WriteError(w, http.StatusUnauthorized, "unauthorized", "a valid bearer token is required")
		return auth.Caller{}, false
	}
	return caller, true
}

// DecodeJSON reads a JSON body of at most MaxBodyBytes into v, writing the
// matching error (415, 413, 400) and returning false when it cannot.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/json" {
		WriteError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as application/json")
		return false
	}
	if r.ContentLength > MaxBodyBytes {
		WriteError(w, http.StatusRequestEntityTooLarge, "body_too_large", "the body is over 256 KiB")
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			WriteError(w, http.StatusRequestEntityTooLarge, "body_too_large", "the body is over 256 KiB")
			return false
		}
		WriteError(w, http.StatusBadRequest, "bad_request", "the body could not be read")
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		WriteError(w, http.StatusBadRequest, "malformed_json", "the body is not valid JSON for this endpoint: "+jsonErrorText(err))
		return false
	}
	return true
}

func jsonErrorText(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return "field " + typeErr.Field + " has the wrong type"
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return "syntax error"
	}
	return "unexpected content"
}

// chatBody is the POST /chat request body. Identity never comes from it.
type chatBody struct {
	ConversationID string        `json:"conversationId"`
	Message        *string       `json:"message"`
	Profile        *chat.Profile `json:"profile"`
	Stateless      bool          `json:"stateless"`
	Messages       chatMessages  `json:"messages"`
	// ContextSupply supplies context inline (seed 004); with its requestId
	// and no message, the deferred question is answered.
	ContextSupply *chat.Supply `json:"contextSupply"`
	// ForceRun answers without the context a pending request asked for.
	ForceRun bool `json:"forceRun"`
}

func (a *API) chat(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		MethodNotAllowed(w, http.MethodPost)
		return
	}
	caller, ok := a.Authenticate(w, r)
	if !ok {
		return
	}
	var body chatBody
	if !DecodeJSON(w, r, &body) {
		return
	}
	uiStream := wantsUIMessageStream(r)
	if uiStream {
		fromUIMessages(&body)
	}
	if body.Message == nil && (body.ContextSupply == nil || body.ContextSupply.RequestID == "") {
		WriteError(w, http.StatusBadRequest, "invalid_request", "message is required")
		return
	}
	req := chat.Request{
		TenantID: caller.TenantID, UserID: caller.UserID, ConversationID: strings.TrimSpace(body.ConversationID),
		Stateless: body.Stateless, Messages: body.Messages,
		RequestID: RequestID(r.Context()), Supply: body.ContextSupply, ForceRun: body.ForceRun,
	}
	if body.Message != nil {
		req.Message = *body.Message
	}
	if body.Profile != nil {
		req.Profile = *body.Profile
	}
	a.prepareAndStream(w, r, req)
}
