// Package strictjson decodes JSON the way every request body and tool
// argument of the backend is read: like encoding/json, but a field name
// must match exactly (encoding/json ignores case), a key may appear only
// once per object (encoding/json keeps the last), and no string may hold a
// control character (Postgres refuses "\u0000" at save time, after the
// model was paid for). Unknown fields stay allowed, so clients that send
// extra fields (the AI SDK's useChat does) keep working.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxDepth bounds how deeply objects and arrays may nest.
const MaxDepth = 100

// Error says which field broke a rule. Field is a path such as
// "profile.jurisdictions[2]"; it is empty for the body as a whole. It never
// carries a value.
type Error struct {
	Field   string
	Problem string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return "field " + e.Field + ": " + e.Problem
}

// Shaper is implemented by a type with its own UnmarshalJSON whose JSON
// form differs from its Go form: JSONShape returns a value whose type has
// the accepted JSON form, so its field names are matched exactly too. A
// type with UnmarshalJSON and no JSONShape is checked for duplicate keys
// and control characters only.
type Shaper interface {
	JSONShape() any
}

// Decode checks data against the rules above and then decodes it into v
// with encoding/json. A broken rule is an *Error; a syntax or type error is
// encoding/json's.
func Decode(data []byte, v any) error {
	if err := Check(data, reflect.TypeOf(v)); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Check applies the rules to data for a value of type t (nil: any shape)
// without decoding it.
func Check(data []byte, t reflect.Type) error {
	if !utf8.Valid(data) {
		return &Error{Problem: "the JSON is not valid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := walker{dec: dec}
	if err := w.value(t, "", 0); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Problem: "unexpected data after the JSON value"}
	}
	return nil
}

type walker struct{ dec *json.Decoder }

var errSyntax = errors.New("strictjson: syntax error")

func (w *walker) value(t reflect.Type, path string, depth int) error {
	tok, err := w.dec.Token()
	if err != nil {
		return syntaxError(err)
	}
	switch v := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return &Error{Field: path, Problem: fmt.Sprintf("nested more than %d levels deep", MaxDepth)}
		}
		if v == '{' {
			return w.object(shapeOf(t), path, depth+1)
		}
		return w.array(shapeOf(t), path, depth+1)
	case string:
		if i := controlIndex(v); i >= 0 {
			return &Error{Field: path, Problem: "contains a control character (" + strconv.QuoteRune(rune(v[i])) + "); send text only"}
		}
	}
	return nil
}

func (w *walker) object(t reflect.Type, path string, depth int) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = fieldsOf(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return syntaxError(err)
		}
		key, _ := tok.(string)
		child := join(path, key)
		if controlIndex(key) >= 0 {
			return &Error{Field: join(path, strconv.Quote(key)), Problem: "the field name contains a control character"}
		}
		if seen[key] {
			return &Error{Field: child, Problem: "appears more than once"}
		}
		seen[key] = true
		ft := elem
		if fields != nil {
			var exact bool
			ft, exact = fields[key]
			if !exact {
				if name, ok := foldMatch(fields, key); ok {
					return &Error{Field: child, Problem: fmt.Sprintf("field names are case-sensitive: use %q", name)}
				}
			}
		}
		if err := w.value(ft, child, depth); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	return syntaxError(err)
}

func (w *walker) array(t reflect.Type, path string, depth int) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	for i := 0; w.dec.More(); i++ {
		if err := w.value(elem, path+"["+strconv.Itoa(i)+"]", depth); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // ']'
	return syntaxError(err)
}

func syntaxError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", errSyntax, err)
}

// IsSyntax reports whether err is a syntax error found by Check.
func IsSyntax(err error) bool { return errors.Is(err, errSyntax) }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// controlIndex returns the byte index of the first control character in
// s (C0 other than tab, newline and carriage return; DEL; C1), or -1.
func controlIndex(s string) int {
	for i, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return i
		}
	}
	return -1
}

// foldMatch returns the field name key matches when case is ignored, the
// way encoding/json would match it.
func foldMatch(fields map[string]reflect.Type, key string) (string, bool) {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return name, true
		}
	}
	return "", false
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	shaperType      = reflect.TypeFor[Shaper]()
)

// shapeOf returns the type whose JSON form t accepts, or nil when that is
// not known (an interface, or an UnmarshalJSON without JSONShape).
func shapeOf(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil
	}
	// Asked through a pointer to t, so that a value method is not called on
	// a nil pointer.
	if reflect.PointerTo(t).Implements(shaperType) {
		return shapeOf(reflect.TypeOf(reflect.New(t).Interface().(Shaper).JSONShape()))
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	return t
}

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// fieldsOf maps the JSON names of a struct's fields to their types, with
// encoding/json's rules: json tags, "-" skipped, unexported fields skipped,
// untagged embedded structs promoted.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	addFields(t, out, 0)
	fieldCache.Store(t, out)
	return out
}

func addFields(t reflect.Type, out map[string]reflect.Type, depth int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && depth < 10 {
				addFields(ft, out, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := out[name]; !taken {
			out[name] = f.Type
		}
	}
}
