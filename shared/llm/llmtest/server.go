package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"regintel/shared/llm"
)

// Protocol is the OpenAI API a request used.
type Protocol string

const (
	ProtocolResponses Protocol = "responses"
	ProtocolChat      Protocol = "chat"
)

// RecordedTool is a function tool offered in a request.
type RecordedTool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// RecordedRequest is one request as the fake received it, with the prompt
// decoded into provider-neutral form.
type RecordedRequest struct {
	Seq      int // 0-based arrival order
	Method   string
	Path     string
	Header   http.Header
	Body     []byte
	Protocol Protocol
	Model    string
	// System is the Responses `instructions`, or the Chat system/developer
	// messages joined by a blank line.
	System string
	// Messages are the conversation messages (history, the new question, then
	// any tool loop: assistant messages with ToolCalls and RoleTool outputs),
	// without the system message.
	Messages     []llm.Message
	Tools        []RecordedTool
	Stream       bool
	IncludeUsage bool // Chat: stream_options.include_usage
	Temperature  *float64
	// PromptCacheKey and PromptCacheRetention are prompt_cache_key and
	// prompt_cache_retention as sent.
	PromptCacheKey       string
	PromptCacheRetention string
	// InputTokens is the prompt's length in the model's own tokens, and
	// CachedTokens the part of it served from cache (cache.go); both are
	// reported in the usage unless the script overrides it.
	InputTokens  int
	CachedTokens int
	// rawTools are the tools exactly as sent.
	rawTools []json.RawMessage
}

// LastUserMessage is the content of the last user message ("" if none).
func (r RecordedRequest) LastUserMessage() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser {
			return r.Messages[i].Content
		}
	}
	return ""
}

// ToolNames lists the offered tools' names.
func (r RecordedRequest) ToolNames() []string {
	names := make([]string, len(r.Tools))
	for i, tool := range r.Tools {
		names[i] = tool.Name
	}
	return names
}

// Responder chooses the script for a request. It may be called concurrently.
type Responder func(req RecordedRequest) Script

// Server is the fake OpenAI server. All methods are safe for concurrent use.
type Server struct {
	httpServer *httptest.Server

	tb testing.TB // reports script errors; nil outside tests

	cache *promptCache

	mu            sync.Mutex
	requests      []RecordedRequest
	queue         []Script
	responder     Responder
	defaultScript Script
	toolsRefused  bool
}

// DefaultAnswer is what the fake streams when nothing else was scripted.
const DefaultAnswer = "This is the fake model's answer."

// NewServer starts a fake server that closes when the test ends. Scripts are
// chosen per request: the next enqueued one, else the responder, else the
// default (DefaultAnswer as text).
func NewServer(tb testing.TB) *Server {
	srv := NewUnstartedServer()
	srv.tb = tb
	srv.Start()
	if tb != nil {
		tb.Cleanup(srv.Close)
	}
	return srv
}

// NewUnstartedServer builds a server for use outside tests (call Start, then Close).
func NewUnstartedServer() *Server {
	srv := &Server{defaultScript: TextScript(DefaultAnswer), cache: newPromptCache()}
	srv.httpServer = httptest.NewUnstartedServer(http.HandlerFunc(srv.serveHTTP))
	return srv
}

// Start starts the listener.
func (s *Server) Start() { s.httpServer.Start() }

// Close shuts the server down, ending open streams.
func (s *Server) Close() {
	s.httpServer.CloseClientConnections()
	s.httpServer.Close()
}

// URL is the server's root URL.
func (s *Server) URL() string { return s.httpServer.URL }

// BaseURL is the OpenAI-style base URL (root + "/v1/") to configure a client with.
func (s *Server) BaseURL() string { return s.httpServer.URL + "/v1/" }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.httpServer.Client() }

// Enqueue adds scripts played in order by the next requests.
func (s *Server) Enqueue(scripts ...Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, scripts...)
}

// SetResponder sets the function that scripts requests when the queue is empty.
func (s *Server) SetResponder(responder Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = responder
}

// SetDefault sets the script used when the queue is empty and no responder is set.
func (s *Server) SetDefault(script Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.defaultScript = script
}

// SetToolsRefused makes every request that offers tools fail with the HTTP
// 400 OpenAI sends for a model without tool support (ToolsRefusedMessage),
// without using a script; requests without tools are answered as usual.
func (s *Server) SetToolsRefused(refused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.toolsRefused = refused
}

// SetClock replaces the clock the prompt cache ages prompts by.
func (s *Server) SetClock(now func() time.Time) {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	s.cache.now = now
}

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

// LastRequest returns the most recent request.
func (s *Server) LastRequest() (RecordedRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return RecordedRequest{}, false
	}
	return s.requests[len(s.requests)-1], true
}

// Reset forgets recorded requests and queued scripts.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
	s.queue = nil
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	protocol, rec, loopErr, ok := readRequest(w, r)
	if !ok {
		return
	}

	if refusal := s.refusal(rec, loopErr); refusal != nil {
		s.recordOnly(&rec)
		writeError(w, refusal)
		return
	}
	tokens := promptTokens(rec.Model, rec.rawTools, rec.System, rec.Messages)
	rec.InputTokens = len(tokens)
	rec.CachedTokens = s.cache.serve(cacheScope(rec), rec.PromptCacheRetention, tokens)
	script := s.record(&rec)
	if err := script.Validate(); err != nil {
		if s.tb != nil {
			s.tb.Errorf("llmtest: script for request %d: %v", rec.Seq, err)
		}
		writeAPIError(w, http.StatusInternalServerError, "server_error", "llmtest script error: "+err.Error())
		return
	}
	if script.Status != 0 && script.Status != http.StatusOK {
		message := script.ErrorMessage
		if message == "" {
			message = http.StatusText(script.Status)
		}
		writeAPIError(w, script.Status, errorTypeFor(script.Status), message)
		return
	}
	if !rec.Stream {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "the fake only answers streaming requests")
		return
	}
	player := newStreamPlayer(w, r, rec, script)
	if protocol == ProtocolResponses {
		player.playResponses()
	} else {
		player.playChat()
	}
}

// readRequest reads the protocol from the path and decodes the body as that
// protocol's request; on a bad request it answers it and returns !ok.
func readRequest(w http.ResponseWriter, r *http.Request) (protocol Protocol, rec RecordedRequest, loopErr *apiError, ok bool) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/responses"):
		protocol = ProtocolResponses
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		protocol = ProtocolChat
	default:
		writeAPIError(w, http.StatusNotFound, "invalid_request_error", "unknown path "+r.URL.Path)
		return protocol, rec, nil, false
	}
	if r.Method != http.MethodPost {
		writeAPIError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method not allowed")
		return protocol, rec, nil, false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "cannot read body")
		return protocol, rec, nil, false
	}
	rec, loopErr, err = decodeRequest(protocol, body)
	if err != nil {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return protocol, rec, nil, false
	}
	rec.Method, rec.Path, rec.Header, rec.Body = r.Method, r.URL.Path, r.Header.Clone(), body
	return protocol, rec, loopErr, true
}

// refusal is the error a real endpoint would answer this request with
// before running the model: a broken tool loop, or tools it does not take.
func (s *Server) refusal(rec RecordedRequest, loopErr *apiError) *apiError {
	if loopErr != nil {
		return loopErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.toolsRefused && len(rec.Tools) > 0 {
		return errToolsRefused
	}
	return nil
}

// recordOnly stores a request that is answered without a script.
func (s *Server) recordOnly(rec *RecordedRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Seq = len(s.requests)
	s.requests = append(s.requests, *rec)
}

// record stores the request and picks its script under one lock, so the
// responder sees a stable Seq.
func (s *Server) record(rec *RecordedRequest) Script {
	s.mu.Lock()
	rec.Seq = len(s.requests)
	s.requests = append(s.requests, *rec)
	var script Script
	var responder Responder
	switch {
	case len(s.queue) > 0:
		script = s.queue[0]
		s.queue = s.queue[1:]
	case s.responder != nil:
		responder = s.responder
	default:
		script = s.defaultScript
	}
	s.mu.Unlock()
	if responder != nil {
		script = responder(*rec)
	}
	return script
}

func errorTypeFor(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

// writeAPIError writes OpenAI's error body without param or code.
func writeAPIError(w http.ResponseWriter, status int, errType, message string) {
	writeError(w, &apiError{status: status, errType: errType, message: message})
}

// writeError writes OpenAI's error body: {"error":{"message","type","param","code"}}.
func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": object{{"message", e.message}, {"type", e.errType}, {"param", e.param}, {"code", e.code}},
	})
}

// decodeRequest reads the parts of a request body tests assert on. err is a
// body that is not a request at all; loopErr a tool loop the real endpoint
// would reject.
func decodeRequest(protocol Protocol, body []byte) (rec RecordedRequest, loopErr *apiError, err error) {
	rec = RecordedRequest{Protocol: protocol}
	var raw struct {
		Model         string            `json:"model"`
		Stream        bool              `json:"stream"`
		Temperature   *float64          `json:"temperature"`
		Instructions  string            `json:"instructions"`
		Input         json.RawMessage   `json:"input"`
		Messages      []wireItem        `json:"messages"`
		Tools         []json.RawMessage `json:"tools"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		PromptCacheKey       string `json:"prompt_cache_key"`
		PromptCacheRetention string `json:"prompt_cache_retention"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return rec, nil, fmt.Errorf("request body is not JSON: %v", err)
	}
	rec.Model, rec.Stream, rec.Temperature = raw.Model, raw.Stream, raw.Temperature
	rec.PromptCacheKey, rec.PromptCacheRetention, rec.rawTools = raw.PromptCacheKey, raw.PromptCacheRetention, raw.Tools
	if raw.StreamOptions != nil {
		rec.IncludeUsage = raw.StreamOptions.IncludeUsage
	}
	var conv conversation
	if raw.Instructions != "" {
		conv.system = append(conv.system, raw.Instructions)
	}
	if protocol == ProtocolResponses {
		var items []wireItem
		if len(raw.Input) > 0 && raw.Input[0] == '"' {
			var text string
			_ = json.Unmarshal(raw.Input, &text)
			conv.add("user", text)
		} else if len(raw.Input) > 0 {
			if err := json.Unmarshal(raw.Input, &items); err != nil {
				return rec, nil, fmt.Errorf("input: %v", err)
			}
		}
		loopErr = decodeResponsesInput(items, &conv)
	} else {
		loopErr = decodeChatMessages(raw.Messages, &conv)
	}
	rec.Messages, rec.System = conv.messages, strings.Join(conv.system, "\n\n")
	rec.Tools, err = decodeTools(raw.Tools)
	return rec, loopErr, err
}

// decodeTools reads the offered function tools of either protocol.
func decodeTools(rawTools []json.RawMessage) ([]RecordedTool, error) {
	var tools []RecordedTool
	for _, rawTool := range rawTools {
		var tool struct {
			Type        string         `json:"type"`
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
			Function    *struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				Parameters  map[string]any `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(rawTool, &tool); err != nil {
			return nil, fmt.Errorf("tool: %v", err)
		}
		if tool.Function != nil { // Chat Completions nests the function
			tools = append(tools, RecordedTool{Name: tool.Function.Name, Description: tool.Function.Description, Parameters: tool.Function.Parameters})
		} else {
			tools = append(tools, RecordedTool{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters})
		}
	}
	return tools, nil
}

// contentText flattens a message content that is a string or a list of
// text parts.
func contentText(content json.RawMessage) string {
	if len(content) == 0 || string(content) == "null" {
		return ""
	}
	var text string
	if json.Unmarshal(content, &text) == nil {
		return text
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) == nil {
		var b strings.Builder
		for _, part := range parts {
			b.WriteString(part.Text)
		}
		return b.String()
	}
	return string(content)
}
