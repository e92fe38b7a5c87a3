package prompt

// The sheets' template language is the part of Go's text/template syntax
// that prompt sheets use, rendered here rather than by text/template: that
// package looks methods up by name through reflection, which makes the
// linker keep every exported method of every type in the binary (megabytes
// in the chat Lambda). This renderer reads struct fields and map keys, and
// calls only the methods listed in sheetMethods. Output, whitespace
// trimming, truth and errors follow text/template with missingkey=error.

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// sheetSyntax is what an unsupported action's error says sheets support.
const sheetSyntax = `prompt sheets support {{.}}, {{.Field.Field}}, {{if}}, {{else if}}, {{else}}, {{with}}, {{range}}, {{end}}, {{join .List ", "}}, {{/* comments */}} and the trim markers {{- and -}}`

// sheetMethods are the methods a sheet may name like a field, by receiver
// type: the only methods templates call.
var sheetMethods = map[reflect.Type]map[string]func(reflect.Value) reflect.Value{
	reflect.TypeFor[FactLine](): {"Text": stringMethod(FactLine.Text)},
}

// stringMethod calls a value-receiver method without copying an
// addressable receiver.
func stringMethod[T any](method func(T) string) func(reflect.Value) reflect.Value {
	return func(v reflect.Value) reflect.Value {
		if v.CanAddr() {
			return reflect.ValueOf(method(*v.Addr().Interface().(*T)))
		}
		return reflect.ValueOf(method(v.Interface().(T)))
	}
}

// sheetTemplate is one parsed template file; it is safe for concurrent use.
type sheetTemplate struct {
	name  string
	nodes []node
	// textSize is the length of its text, and largestOutput the longest
	// output so far: the output buffer is sized once from them, up to
	// maxOutputHint (message sections can be large once and small after).
	textSize      int
	largestOutput atomic.Int64
}

const maxOutputHint = 16 << 10

type nodeKind uint8

const (
	textNode nodeKind = iota
	printNode
	ifNode
	withNode
	rangeNode
)

type node struct {
	kind     nodeKind
	text     string
	pipe     pipe
	list     []node
	elseList []node
	line     int
	// action is the action as written, for errors.
	action string
}

// pipe is one operand, or join with its list and separator.
type pipe struct {
	join bool
	args []operand
}

type operandKind uint8

const (
	dotOperand operandKind = iota
	fieldOperand
	stringOperand
)

type operand struct {
	kind  operandKind
	steps []*fieldStep
	// str is a string literal, made a reflect.Value once.
	str reflect.Value
}

// fieldStep is one .Name of a field chain. It remembers how it resolved on
// the last type it saw, so rendering does not search struct fields.
type fieldStep struct {
	name     string
	nameKey  reflect.Value
	resolved atomic.Pointer[resolvedField]
}

type resolvedField struct {
	typ      reflect.Type
	method   func(reflect.Value) reflect.Value
	index    []int
	exported bool
}

func (f *fieldStep) resolve(typ reflect.Type) *resolvedField {
	if r := f.resolved.Load(); r != nil && r.typ == typ {
		return r
	}
	r := &resolvedField{typ: typ, method: sheetMethods[typ][f.name]}
	if r.method == nil && typ.Kind() == reflect.Struct {
		if sf, ok := typ.FieldByName(f.name); ok {
			r.index, r.exported = sf.Index, sf.IsExported()
		}
	}
	f.resolved.Store(r)
	return r
}

// parseTemplate parses one template file; errors read "name:line: ...".
func parseTemplate(name, src string) (*sheetTemplate, error) {
	items, err := lexTemplate(name, src)
	if err != nil {
		return nil, err
	}
	p := &sheetParser{name: name, items: items, lastLine: 1 + strings.Count(src, "\n")}
	nodes, term, err := p.parseList()
	if err != nil {
		return nil, err
	}
	if term != nil {
		return nil, p.errorf(term, "unexpected %s", term.action)
	}
	t := &sheetTemplate{name: name, nodes: nodes}
	for _, it := range items {
		t.textSize += len(it.text)
	}
	return t, nil
}

// execute renders the template with data into b.
func (t *sheetTemplate) execute(b *strings.Builder, data reflect.Value) error {
	b.Grow(max(t.textSize+t.textSize/2, min(int(t.largestOutput.Load()), maxOutputHint)))
	start := b.Len()
	err := t.walk(b, data, t.nodes)
	if n := int64(b.Len() - start); n > t.largestOutput.Load() {
		t.largestOutput.Store(n)
	}
	return err
}

// ---- lexing

const spaceChars = " \t\r\n"

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func hasLeftTrimMarker(s string) bool  { return len(s) >= 2 && s[0] == '-' && isSpace(s[1]) }
func hasRightTrimMarker(s string) bool { return len(s) >= 2 && isSpace(s[0]) && s[1] == '-' }

// atRightDelim reports whether s starts with "}}", or with " -}}" (trim).
func atRightDelim(s string) (delim, trim bool) {
	if hasRightTrimMarker(s) && strings.HasPrefix(s[2:], "}}") {
		return true, true
	}
	return strings.HasPrefix(s, "}}"), false
}

type item struct {
	isAction bool
	// text is set for text; tokens, line and action for an action.
	text   string
	tokens []actionToken
	line   int
	action string
}

type tokenKind uint8

const (
	identToken tokenKind = iota
	dotToken
	fieldToken
	stringToken
)

type actionToken struct {
	kind tokenKind
	// val is an identifier, a string's value, or a field chain's names
	// joined by dots (".A.B").
	val string
}

// lexTemplate splits src into text and actions, trimming text next to trim
// markers and dropping comments, as text/template's lexer does.
func lexTemplate(name, src string) ([]item, error) {
	var items []item
	pos, line := 0, 1
	trimLeading := false
	for {
		x := strings.Index(src[pos:], "{{")
		end := len(src)
		if x >= 0 {
			end = pos + x
		}
		text := src[pos:end]
		if trimLeading {
			text = strings.TrimLeft(text, spaceChars)
		}
		if x >= 0 && hasLeftTrimMarker(src[end+2:]) {
			text = strings.TrimRight(text, spaceChars)
		}
		if text != "" {
			items = append(items, item{text: text})
		}
		if x < 0 {
			return items, nil
		}
		line += strings.Count(src[pos:end], "\n")
		next, trim, it, err := lexAction(src, end)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if it != nil {
			it.line = line
			items = append(items, *it)
		}
		line += strings.Count(src[end:next], "\n")
		pos, trimLeading = next, trim
	}
}

// lexAction lexes the action or comment at start ("{{"). It returns where
// the text after it starts, whether that text is trimmed, and the action
// (nil for a comment).
func lexAction(src string, start int) (next int, trim bool, it *item, err error) {
	p := start + 2
	if hasLeftTrimMarker(src[p:]) {
		p += 2
	}
	if strings.HasPrefix(src[p:], "/*") {
		x := strings.Index(src[p+2:], "*/")
		if x < 0 {
			return 0, false, nil, fmt.Errorf("unclosed comment")
		}
		p += 2 + x + 2
		delim, trim := atRightDelim(src[p:])
		if !delim {
			return 0, false, nil, fmt.Errorf("comment ends before closing delimiter")
		}
		if trim {
			p += 2
		}
		return p + 2, trim, nil, nil
	}
	var tokens []actionToken
	for {
		if delim, trim := atRightDelim(src[p:]); delim {
			if trim {
				p += 2
			}
			return p + 2, trim, &item{isAction: true, tokens: tokens, action: src[start : p+2]}, nil
		}
		if p >= len(src) {
			return 0, false, nil, fmt.Errorf("unclosed action")
		}
		if isSpace(src[p]) {
			p++
			continue
		}
		tok, end, err := lexToken(src, p)
		if err != nil {
			return 0, false, nil, err
		}
		if end < len(src) && src[end] == '}' && !strings.HasPrefix(src[end:], "}}") {
			return 0, false, nil, fmt.Errorf("unexpected \"}\" in %q: an action ends with \"}}\"", src[start:end+1])
		}
		if tok == nil || !(end == len(src) || isSpace(src[end]) || strings.HasPrefix(src[end:], "}}")) {
			return 0, false, nil, unsupported(src, start)
		}
		tokens = append(tokens, *tok)
		p = end
	}
}

// lexToken lexes the token at p; nil means a token outside the sheets'
// syntax (variables, pipes, numbers, parentheses...).
func lexToken(src string, p int) (*actionToken, int, error) {
	switch c := src[p]; {
	case c == '"':
		for i := p + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '\n':
				return nil, 0, fmt.Errorf("unterminated quoted string")
			case '"':
				s, err := strconv.Unquote(src[p : i+1])
				if err != nil {
					return nil, 0, fmt.Errorf("%s: %w", src[p:i+1], err)
				}
				return &actionToken{kind: stringToken, val: s}, i + 1, nil
			}
		}
		return nil, 0, fmt.Errorf("unterminated quoted string")
	case c == '`':
		x := strings.IndexByte(src[p+1:], '`')
		if x < 0 {
			return nil, 0, fmt.Errorf("unterminated raw quoted string")
		}
		return &actionToken{kind: stringToken, val: src[p+1 : p+1+x]}, p + 2 + x, nil
	case c == '.':
		end := p
		for end < len(src) && src[end] == '.' && identStart(src[end+1:]) {
			end = identEnd(src, end+1)
		}
		if end == p {
			if p+1 < len(src) && src[p+1] >= '0' && src[p+1] <= '9' {
				return nil, p, nil
			}
			return &actionToken{kind: dotToken}, p + 1, nil
		}
		return &actionToken{kind: fieldToken, val: src[p:end]}, end, nil
	case identStart(src[p:]):
		end := identEnd(src, p)
		return &actionToken{kind: identToken, val: src[p:end]}, end, nil
	}
	return nil, p, nil
}

func identStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func identEnd(src string, p int) int {
	for p < len(src) {
		r, size := utf8.DecodeRuneInString(src[p:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		p += size
	}
	return p
}

// unsupported names the action at start as written: up to its "}}", or
// to the end of its line when it has none.
func unsupported(src string, start int) error {
	action := src[start:]
	if x := strings.Index(action, "}}"); x >= 0 {
		action = action[:x+2]
	} else if x := strings.IndexByte(action, '\n'); x >= 0 {
		action = action[:x]
	}
	return unsupportedError(action)
}

func unsupportedError(action string) error {
	return fmt.Errorf("unsupported action %q (%s)", action, sheetSyntax)
}

// ---- parsing

type sheetParser struct {
	name  string
	items []item
	pos   int
	// lastLine is where the file ends, where a missing {{end}} is found.
	lastLine int
}

func (p *sheetParser) errorf(it *item, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, it.line, fmt.Sprintf(format, args...))
}

func (p *sheetParser) unclosed(it *item) error {
	return fmt.Errorf("%s:%d: unexpected end of file: %s on line %d has no {{end}}", p.name, p.lastLine, it.action, it.line)
}

// parseList parses up to an {{else}} or {{end}}, which it returns, or to
// the end of the template (nil).
func (p *sheetParser) parseList() ([]node, *item, error) {
	var list []node
	for p.pos < len(p.items) {
		it := &p.items[p.pos]
		p.pos++
		if !it.isAction {
			list = append(list, node{kind: textNode, text: it.text})
			continue
		}
		if len(it.tokens) > 0 && it.tokens[0].kind == identToken {
			switch keyword := it.tokens[0].val; keyword {
			case "else", "end":
				return list, it, nil
			case "if", "with", "range":
				n, err := p.parseBlock(it, keyword, it.tokens[1:])
				if err != nil {
					return nil, nil, err
				}
				list = append(list, n)
				continue
			}
		}
		pipe, err := p.parsePipe(it, it.tokens)
		if err != nil {
			return nil, nil, err
		}
		list = append(list, node{kind: printNode, pipe: pipe, line: it.line, action: it.action})
	}
	return list, nil, nil
}

var blockKinds = map[string]nodeKind{"if": ifNode, "with": withNode, "range": rangeNode}

// parseBlock parses an if, with or range from its pipeline to its {{end}}.
func (p *sheetParser) parseBlock(it *item, keyword string, rest []actionToken) (node, error) {
	n := node{kind: blockKinds[keyword], line: it.line, action: it.action}
	var err error
	if n.pipe, err = p.parsePipe(it, rest); err != nil {
		return node{}, err
	}
	list, term, err := p.parseList()
	if err != nil {
		return node{}, err
	}
	if term == nil {
		return node{}, p.unclosed(it)
	}
	n.list = list
	if term.tokens[0].val == "end" {
		if len(term.tokens) > 1 {
			return node{}, p.errorf(term, "%v", unsupportedError(term.action))
		}
		return n, nil
	}
	elseTokens := term.tokens[1:]
	if len(elseTokens) > 0 {
		// {{else if}} in an if and {{else with}} in a with share the {{end}}.
		if (keyword == "if" || keyword == "with") && elseTokens[0].kind == identToken && elseTokens[0].val == keyword {
			chained, err := p.parseBlock(term, keyword, elseTokens[1:])
			n.elseList = []node{chained}
			return n, err
		}
		return node{}, p.errorf(term, "%v", unsupportedError(term.action))
	}
	elseList, end, err := p.parseList()
	if err != nil {
		return node{}, err
	}
	switch {
	case end == nil:
		return node{}, p.unclosed(term)
	case end.tokens[0].val != "end":
		return node{}, p.errorf(end, "unexpected %s: expected {{end}}", end.action)
	case len(end.tokens) > 1:
		return node{}, p.errorf(end, "%v", unsupportedError(end.action))
	}
	n.elseList = elseList
	return n, nil
}

// parsePipe parses a single operand or a join call.
func (p *sheetParser) parsePipe(it *item, tokens []actionToken) (pipe, error) {
	if len(tokens) == 0 {
		return pipe{}, p.errorf(it, "missing value in %s", it.action)
	}
	var out pipe
	if tokens[0].kind == identToken && tokens[0].val == "join" {
		if len(tokens) != 3 {
			return pipe{}, p.errorf(it, "%s: join takes a list and a separator", it.action)
		}
		out.join, tokens = true, tokens[1:]
	} else if len(tokens) != 1 {
		return pipe{}, p.errorf(it, "%v", unsupportedError(it.action))
	}
	for _, tok := range tokens {
		switch tok.kind {
		case dotToken:
			out.args = append(out.args, operand{kind: dotOperand})
		case stringToken:
			out.args = append(out.args, operand{kind: stringOperand, str: reflect.ValueOf(tok.val)})
		case fieldToken:
			op := operand{kind: fieldOperand}
			for _, name := range strings.Split(tok.val[1:], ".") {
				op.steps = append(op.steps, &fieldStep{name: name, nameKey: reflect.ValueOf(name)})
			}
			out.args = append(out.args, op)
		default:
			return pipe{}, p.errorf(it, "%v", unsupportedError(it.action))
		}
	}
	return out, nil
}

// ---- execution

func (t *sheetTemplate) errorf(n *node, format string, args ...any) error {
	return fmt.Errorf("%s:%d: executing %s: %s", t.name, n.line, n.action, fmt.Sprintf(format, args...))
}

func (t *sheetTemplate) walk(b *strings.Builder, dot reflect.Value, list []node) error {
	for i := range list {
		n := &list[i]
		var err error
		switch n.kind {
		case textNode:
			b.WriteString(n.text)
		case printNode:
			err = t.print(b, dot, n)
		case ifNode, withNode:
			err = t.walkIf(b, dot, n)
		case rangeNode:
			err = t.walkRange(b, dot, n)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *sheetTemplate) walkIf(b *strings.Builder, dot reflect.Value, n *node) error {
	val, err := t.eval(dot, n)
	if err != nil {
		return err
	}
	truth, ok := isTrue(indirectInterface(val))
	if !ok {
		return t.errorf(n, "if/with can't use %v", val)
	}
	switch {
	case truth && n.kind == withNode:
		return t.walk(b, val, n.list)
	case truth:
		return t.walk(b, dot, n.list)
	}
	return t.walk(b, dot, n.elseList)
}

func (t *sheetTemplate) walkRange(b *strings.Builder, dot reflect.Value, n *node) error {
	val, err := t.eval(dot, n)
	if err != nil {
		return err
	}
	val, _ = indirect(val)
	switch val.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range val.Len() {
			if err := t.walk(b, val.Index(i), n.list); err != nil {
				return err
			}
		}
		if val.Len() > 0 {
			return nil
		}
	case reflect.Map:
		keys, err := sortedKeys(val)
		if err != nil {
			return t.errorf(n, "%v", err)
		}
		for _, k := range keys {
			if err := t.walk(b, val.MapIndex(k), n.list); err != nil {
				return err
			}
		}
		if len(keys) > 0 {
			return nil
		}
	case reflect.Invalid:
	default:
		return t.errorf(n, "range can't iterate over %v", val)
	}
	return t.walk(b, dot, n.elseList)
}

// sortedKeys orders a map's keys as text/template does, for string and
// integer keys.
func sortedKeys(m reflect.Value) ([]reflect.Value, error) {
	keys := m.MapKeys()
	var compare func(a, b reflect.Value) int
	switch m.Type().Key().Kind() {
	case reflect.String:
		compare = func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		compare = func(a, b reflect.Value) int { return cmp.Compare(a.Int(), b.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		compare = func(a, b reflect.Value) int { return cmp.Compare(a.Uint(), b.Uint()) }
	default:
		return nil, fmt.Errorf("range over a map supports string and integer keys, not %s", m.Type().Key())
	}
	slices.SortFunc(keys, compare)
	return keys, nil
}

// eval evaluates a pipeline; a value held in an empty interface is used as
// itself.
func (t *sheetTemplate) eval(dot reflect.Value, n *node) (reflect.Value, error) {
	if n.pipe.join {
		var b strings.Builder
		if err := t.join(&b, dot, n); err != nil {
			return reflect.Value{}, err
		}
		return reflect.ValueOf(b.String()), nil
	}
	v, err := t.operand(dot, n, &n.pipe.args[0])
	if err != nil {
		return reflect.Value{}, err
	}
	if v.Kind() == reflect.Interface && v.Type().NumMethod() == 0 {
		v = reflect.ValueOf(v.Interface())
	}
	return v, nil
}

func (t *sheetTemplate) operand(dot reflect.Value, n *node, op *operand) (reflect.Value, error) {
	switch op.kind {
	case stringOperand:
		return op.str, nil
	case fieldOperand:
		v := dot
		for _, step := range op.steps {
			var err error
			if v, err = t.field(n, v, step); err != nil {
				return reflect.Value{}, err
			}
		}
		return v, nil
	}
	return dot, nil
}

// field evaluates receiver.Name as text/template does with
// missingkey=error, listed methods standing in for its method lookup.
func (t *sheetTemplate) field(n *node, receiver reflect.Value, step *fieldStep) (reflect.Value, error) {
	if !receiver.IsValid() {
		return reflect.Value{}, t.errorf(n, "nil data; no entry for key %q", step.name)
	}
	typ := receiver.Type()
	receiver, isNil := indirect(receiver)
	if isNil {
		if receiver.Kind() == reflect.Pointer && receiver.Type().Elem().Kind() == reflect.Struct {
			if _, ok := receiver.Type().Elem().FieldByName(step.name); !ok && sheetMethods[receiver.Type().Elem()][step.name] == nil {
				return reflect.Value{}, t.errorf(n, "can't evaluate field %s in type %s", step.name, typ)
			}
		}
		return reflect.Value{}, t.errorf(n, "nil pointer evaluating %s.%s", typ, step.name)
	}
	r := step.resolve(receiver.Type())
	switch {
	case r.method != nil:
		return r.method(receiver), nil
	case r.index != nil:
		if !r.exported {
			return reflect.Value{}, t.errorf(n, "%s is an unexported field of struct type %s", step.name, typ)
		}
		v, err := receiver.FieldByIndexErr(r.index)
		if err != nil {
			return reflect.Value{}, t.errorf(n, "%v", err)
		}
		return v, nil
	case receiver.Kind() == reflect.Map && step.nameKey.Type().AssignableTo(receiver.Type().Key()):
		v := receiver.MapIndex(step.nameKey)
		if !v.IsValid() {
			return reflect.Value{}, t.errorf(n, "map has no entry for key %q", step.name)
		}
		return v, nil
	}
	return reflect.Value{}, t.errorf(n, "can't evaluate field %s in type %s", step.name, typ)
}

// join writes strings.Join(list, separator) of its two arguments.
func (t *sheetTemplate) join(b *strings.Builder, dot reflect.Value, n *node) error {
	list, err := t.argument(dot, n, &n.pipe.args[0], stringsType)
	if err != nil {
		return err
	}
	sep, err := t.argument(dot, n, &n.pipe.args[1], stringType)
	if err != nil {
		return err
	}
	for i := range list.Len() {
		if i > 0 {
			b.WriteString(sep.String())
		}
		b.WriteString(list.Index(i).String())
	}
	return nil
}

// argument evaluates a function argument of type typ, converting it as
// text/template does.
func (t *sheetTemplate) argument(dot reflect.Value, n *node, op *operand, typ reflect.Type) (reflect.Value, error) {
	v, err := t.operand(dot, n, op)
	if err != nil {
		return reflect.Value{}, err
	}
	if !v.IsValid() {
		if typ.Kind() == reflect.Slice {
			return reflect.Zero(typ), nil
		}
		return reflect.Value{}, t.errorf(n, "invalid value; expected %s", typ)
	}
	if v.Type().AssignableTo(typ) {
		return v, nil
	}
	if v.Kind() == reflect.Interface && !v.IsNil() && v.Elem().Type().AssignableTo(typ) {
		return v.Elem(), nil
	}
	if v.Kind() == reflect.Pointer && v.Type().Elem().AssignableTo(typ) {
		if v.IsNil() {
			return reflect.Value{}, t.errorf(n, "dereference of nil pointer of type %s", typ)
		}
		return v.Elem(), nil
	}
	return reflect.Value{}, t.errorf(n, "wrong type for value; expected %s; got %s", typ, v.Type())
}

var (
	stringType   = reflect.TypeFor[string]()
	stringsType  = reflect.TypeFor[[]string]()
	intType      = reflect.TypeFor[int]()
	boolType     = reflect.TypeFor[bool]()
	errorType    = reflect.TypeFor[error]()
	stringerType = reflect.TypeFor[fmt.Stringer]()
)

// print writes an action's value as text/template prints it.
func (t *sheetTemplate) print(b *strings.Builder, dot reflect.Value, n *node) error {
	if n.pipe.join {
		return t.join(b, dot, n)
	}
	v, err := t.eval(dot, n)
	if err != nil {
		return err
	}
	if v.Kind() == reflect.Pointer {
		v, _ = indirect(v)
	}
	if !v.IsValid() {
		b.WriteString("<no value>")
		return nil
	}
	switch v.Type() {
	case stringType:
		b.WriteString(v.String())
		return nil
	case intType:
		var buf [20]byte
		b.Write(strconv.AppendInt(buf[:0], v.Int(), 10))
		return nil
	case boolType:
		b.WriteString(strconv.FormatBool(v.Bool()))
		return nil
	}
	typ := v.Type()
	if !typ.Implements(errorType) && !typ.Implements(stringerType) {
		ptr := reflect.PointerTo(typ)
		if v.CanAddr() && (ptr.Implements(errorType) || ptr.Implements(stringerType)) {
			v = v.Addr()
		} else if k := v.Kind(); k == reflect.Chan || k == reflect.Func {
			return t.errorf(n, "can't print %s of type %s", n.action, typ)
		}
	}
	if !v.CanInterface() {
		return t.errorf(n, "can't print a value of type %s reached through an unexported field", typ)
	}
	// Sprint, not Fprint: handing b to fmt as an io.Writer would move every
	// render's buffer to the heap.
	b.WriteString(fmt.Sprint(v.Interface()))
	return nil
}

// indirect follows pointers and interfaces to a value or a nil.
func indirect(v reflect.Value) (reflect.Value, bool) {
	for ; v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface; v = v.Elem() {
		if v.IsNil() {
			return v, true
		}
	}
	return v, false
}

// indirectInterface looks inside an interface; nil gives no value.
func indirectInterface(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Interface {
		return v
	}
	if v.IsNil() {
		return reflect.Value{}
	}
	return v.Elem()
}

// isTrue is text/template's truth: zero numbers, false, nil and empty
// strings, slices and maps are false; structs are always true.
func isTrue(v reflect.Value) (truth, ok bool) {
	if !v.IsValid() {
		return false, true
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() > 0, true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Complex64, reflect.Complex128:
		return v.Complex() != 0, true
	case reflect.Chan, reflect.Func, reflect.Pointer, reflect.Interface:
		return !v.IsNil(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() != 0, true
	case reflect.Float32, reflect.Float64:
		return v.Float() != 0, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() != 0, true
	case reflect.Struct:
		return true, true
	}
	return false, false
}
