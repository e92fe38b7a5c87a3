package httpapi_test

import (
	"net/http"
	"testing"

	"regintel/shared/llm/llmtest"
)

// JSON bodies are UTF-8: a body declared in any other charset is refused
// with 415 before it is read, on every JSON route; UTF-8 in any case, or
// no charset, is read.
func TestNonUTF8CharsetIsUnsupported(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.SetDefault(llmtest.TextScript("Answer."))
	for _, contentType := range []string{"application/json; charset=utf-16", "application/json; charset=UTF-16LE",
		"application/json;charset=iso-8859-1", "application/json; charset=\"us-ascii\"", "Application/JSON; Charset=windows-1252"} {
		r := e.post("/chat", contentType, `{"message":"What is VAT?"}`, nil)
		assertError(t, r, http.StatusUnsupportedMediaType, "unsupported_charset")
	}
	if n := len(e.llm.Requests()); n != 0 {
		t.Errorf("refused bodies reached the model %d times", n)
	}
	for _, contentType := range []string{"application/json; charset=utf-8", "application/json; charset=UTF-8", "application/json"} {
		if r := e.post("/chat", contentType, `{"message":"What is VAT?"}`, nil); r.Status != http.StatusOK {
			t.Errorf("%s: %d %s", contentType, r.Status, r.Body)
		}
	}
	id := e.chat(map[string]any{"message": "What is VAT?"}, nil).Header.Get("X-Conversation-Id")
	req, _ := http.NewRequest(http.MethodPatch, e.server.URL+"/conversations/"+id, nil)
	req.Header.Set("Content-Type", "application/json; charset=utf-16")
	req.Body = http.NoBody
	assertError(t, e.send(req), http.StatusUnsupportedMediaType, "unsupported_charset")
}
