package strictjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"regintel/shared/strictjson"
)

type profile struct {
	PersonaType   string   `json:"personaType"`
	Jurisdictions []string `json:"jurisdictions"`
}

type base struct {
	ID string `json:"id"`
}

type body struct {
	base
	Message   *string           `json:"message"`
	Stateless bool              `json:"stateless"`
	Profile   *profile          `json:"profile"`
	Labels    map[string]string `json:"labels"`
	Raw       json.RawMessage   `json:"raw"`
	Skipped   string            `json:"-"`
	Shaped    shaped            `json:"shaped"`
}

// shaped decodes itself from {"Text": ...}; its JSON shape says so.
type shaped string

func (s *shaped) UnmarshalJSON(b []byte) error {
	var v struct{ Text string }
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = shaped(v.Text)
	return nil
}

func (shaped) JSONShape() any { return struct{ Text string }{} }

func TestDecodeAcceptsExactNamesAndUnknownFields(t *testing.T) {
	var b body
	in := `{"id":"c1","message":"line one\n\tline two","stateless":true,"profile":{"personaType":"SME","jurisdictions":["IE"]},
		"labels":{"Any Key":"v"},"raw":{"x":1},"shaped":{"Text":"hi"},"trigger":"submit-message","extra":{"nested":[1,2]}}`
	if err := strictjson.Decode([]byte(in), &b); err != nil {
		t.Fatal(err)
	}
	if b.ID != "c1" || *b.Message != "line one\n\tline two" || !b.Stateless || b.Profile.Jurisdictions[0] != "IE" || b.Labels["Any Key"] != "v" || b.Shaped != "hi" {
		t.Fatalf("decoded %+v", b)
	}
}

// A type that is itself the Shaper, decoded through a pointer (as a
// handler decodes its body), is matched against its shape.
func TestDecodeIntoAShaper(t *testing.T) {
	var s shaped
	if err := strictjson.Decode([]byte(`{"Text":"hi"}`), &s); err != nil || s != "hi" {
		t.Fatalf("decoded %q, %v", s, err)
	}
	var strict *strictjson.Error
	if err := strictjson.Decode([]byte(`{"text":"hi"}`), &s); !errors.As(err, &strict) || strict.Field != "text" {
		t.Fatalf("case-folded name into a shaper: %v", err)
	}
}

func TestDecodeRefusesAndNamesTheField(t *testing.T) {
	for _, c := range []struct{ name, in, field, problem string }{
		{"case-folded name", `{"STATELESS":true}`, "STATELESS", `use "stateless"`},
		{"case-folded nested name", `{"profile":{"PersonaType":"x"}}`, "profile.PersonaType", `use "personaType"`},
		{"case-folded embedded name", `{"Id":"x"}`, "Id", `use "id"`},
		{"case-folded shaped name", `{"shaped":{"text":"x"}}`, "shaped.text", `use "Text"`},
		{"long s folds to s", `{"\u017Ftateless":true}`, "\u017Ftateless", `use "stateless"`},
		{"folding look-alike in a value is text", `{"profile":{"personaType":"\u212A"}}`, "", ""},
		{"duplicate key", `{"stateless":false,"stateless":true}`, "stateless", "more than once"},
		{"duplicate nested key", `{"profile":{"jurisdictions":["IE"],"jurisdictions":["UK"]}}`, "profile.jurisdictions", "more than once"},
		{"duplicate map key", `{"labels":{"a":"1","a":"2"}}`, "labels.a", "more than once"},
		{"duplicate unknown key", `{"extra":{"a":1,"a":2}}`, "extra.a", "more than once"},
		{"nul in message", `{"message":"a\u0000b"}`, "message", "control character"},
		{"escape in a list", `{"profile":{"jurisdictions":["IE","\u001b[31m"]}}`, "profile.jurisdictions[1]", "control character"},
		{"C1 control", `{"profile":{"personaType":"\u0085"}}`, "profile.personaType", "control character"},
		{"DEL", `{"message":"\u007f"}`, "message", "control character"},
		{"control in raw", `{"raw":{"a":["\u0000"]}}`, "raw.a[0]", "control character"},
		{"control in a key", `{"a\u0000":1}`, `"a\x00"`, "field name contains a control character"},
		{"raw control byte", "{\"message\":\"a\x01b\"}", "", "syntax"},
		{"invalid utf-8", "{\"message\":\"\xff\"}", "", "not valid UTF-8"},
		{"trailing data", `{"message":"a"} {}`, "", "after the JSON value"},
		{"too deep", strings.Repeat("[", strictjson.MaxDepth+1) + strings.Repeat("]", strictjson.MaxDepth+1), strings.Repeat("[0]", strictjson.MaxDepth), "levels deep"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b body
			err := strictjson.Decode([]byte(c.in), &b)
			if c.problem == "" {
				if err != nil {
					t.Fatalf("want accepted, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want refused, decoded %+v", b)
			}
			if !strings.Contains(err.Error(), c.problem) {
				t.Errorf("err = %v, want it to mention %q", err, c.problem)
			}
			var se *strictjson.Error
			if c.problem != "syntax" && (!errors.As(err, &se) || se.Field != c.field) {
				t.Errorf("err = %#v, want field %q", err, c.field)
			}
		})
	}
}

func TestDecodeIntoAnyAndMaps(t *testing.T) {
	var m map[string]json.RawMessage
	if err := strictjson.Decode([]byte(`{"Title":"x","title":"y"}`), &m); err != nil {
		t.Fatalf("distinct keys differing in case are distinct in a map: %v", err)
	}
	if err := strictjson.Decode([]byte(`{"title":"x","title":"y"}`), &m); err == nil {
		t.Fatal("duplicate map key accepted")
	}
	var v any
	if err := strictjson.Decode([]byte(`[{"a":"\u0000"}]`), &v); err == nil || !strings.Contains(err.Error(), "[0].a") {
		t.Fatalf("err = %v", err)
	}
}

func TestDecodeKeepsEncodingJSONErrors(t *testing.T) {
	var b body
	err := strictjson.Decode([]byte(`{"stateless":"yes"}`), &b)
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		t.Fatalf("err = %v, want a type error", err)
	}
	if err := strictjson.Decode([]byte(`{"message":`), &b); !strictjson.IsSyntax(err) {
		t.Fatalf("err = %v, want a syntax error", err)
	}
}

// FuzzDecode: whatever the input, Decode does not panic, and what it
// accepts encoding/json decodes the same way, with no control character in
// any string.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{`{"message":"hi","profile":{"jurisdictions":["IE"]}}`, `{"STATELESS":true}`,
		`{"message":"a","message":"b"}`, `{"message":"\u0000"}`, `[{"a":{"b":[1,"x"]}}]`, `{"ſtateless":true}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var strict, loose body
		if err := strictjson.Decode(data, &strict); err != nil {
			return
		}
		if err := json.Unmarshal(data, &loose); err != nil {
			t.Fatalf("accepted %q that encoding/json refuses: %v", data, err)
		}
		a, _ := json.Marshal(strict)
		b, _ := json.Marshal(loose)
		if string(a) != string(b) {
			t.Fatalf("%q decoded as %s, encoding/json %s", data, a, b)
		}
		var v any
		_ = json.Unmarshal(data, &v)
		if s, ok := findString(v, func(s string) bool { return strings.ContainsFunc(s, isControl) }); ok {
			t.Fatalf("accepted a control character in %q", s)
		}
	})
}

func isControl(r rune) bool {
	return r != '\t' && r != '\n' && r != '\r' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f))
}

// findString returns the first key or string value in v that bad matches.
func findString(v any, bad func(string) bool) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, bad(x)
	case []any:
		for _, e := range x {
			if s, ok := findString(e, bad); ok {
				return s, true
			}
		}
	case map[string]any:
		for k, e := range x {
			if bad(k) {
				return k, true
			}
			if s, ok := findString(e, bad); ok {
				return s, true
			}
		}
	}
	return "", false
}
