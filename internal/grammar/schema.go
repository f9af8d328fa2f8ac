// The JSON Schema front end: the subset OpenAI's structured outputs accept, compiled to a grammar of compact JSON
// with bounded whitespace between tokens (no whitespace before the first or after the last byte, at most one
// newline and 20 spaces between tokens), so output ends at a predictable length.
//
// Supported: type (one or a list), properties in declaration order with required and additionalProperties
// (false or absent: only the listed properties; true or a schema: maps without listed properties), enum, const,
// string minLength/maxLength, pattern and format (date, time, date-time, uuid, ipv4, email), numbers and
// integers (at most 16 integer digits, 15 fraction digits, two exponent digits), arrays with items and
// minItems/maxItems, anyOf, allOf of one schema, $ref into #, #/$defs and #/definitions (recursion allowed), and
// the empty schema (any JSON value). Annotations (title, description, default, examples, ...) are ignored; any
// other keyword is an error naming it and where it is.
package grammar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ParseJSONSchema parses a schema document into a grammar of the JSON texts it accepts.
func ParseJSONSchema(src []byte) (*Grammar, error) {
	doc, err := decodeOrdered(src)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil, errf("JSON schema: the document ends early")
	}
	if err != nil {
		return nil, errf("JSON schema: %v", err)
	}
	c := &schemaCompiler{g: newGrammar(), root: doc, refs: map[string]int{}}
	c.ws = opt(alt(lit(" "), seq(lit("\n"), repeat(byteRange(' ', ' '), 0, 20))))
	body, err := c.schema(doc, "#")
	if err != nil {
		return nil, err
	}
	c.g.root = c.g.define("root", body)
	return c.g, nil
}

// omap is a JSON object with its key order kept (properties are generated in declaration order).
type omap struct {
	keys []string
	vals map[string]any
}

func (m *omap) get(k string) (any, bool) {
	v, ok := m.vals[k]
	return v, ok
}

// decodeOrdered decodes JSON keeping object key order; numbers stay json.Number.
func decodeOrdered(src []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	v, err := decodeValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the schema")
	}
	return v, nil
}

func decodeValue(d *json.Decoder, depth int) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	if t == json.Delim('{') || t == json.Delim('[') {
		if depth++; depth > maxJSONDepth {
			return nil, fmt.Errorf("objects and arrays nest deeper than %d", maxJSONDepth)
		}
	}
	switch t {
	case json.Delim('{'):
		m := &omap{vals: map[string]any{}}
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			v, err := decodeValue(d, depth)
			if err != nil {
				return nil, err
			}
			if _, dup := m.vals[k]; !dup {
				m.keys = append(m.keys, k)
			}
			m.vals[k] = v
		}
		_, err := d.Token()
		return m, err
	case json.Delim('['):
		var a []any
		for d.More() {
			v, err := decodeValue(d, depth)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token()
		return a, err
	}
	return t, nil
}

// Nesting limits: a schema document or a chain of subschemas deeper than these is an error, not a deep recursion.
const (
	maxJSONDepth   = 1000
	maxSchemaDepth = 128
)

type schemaCompiler struct {
	depth int // subschemas being compiled, innermost last
	g     *Grammar
	root  any
	refs  map[string]int // JSON pointer → rule
	ws    *expr
	anyV  int // the any-value rule, -1 until first used
	anyS  bool
}

// annotations are keywords that do not constrain the output.
var annotations = map[string]bool{"title": true, "description": true, "default": true, "examples": true,
	"$schema": true, "$id": true, "$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"$defs": true, "definitions": true, "strict": true, "discriminator": true}

// keywordsOf lists, per type, the keywords the compiler reads (others are errors).
var keywordsOf = map[string][]string{
	"object":  {"properties", "required", "additionalProperties"},
	"array":   {"items", "minItems", "maxItems"},
	"string":  {"minLength", "maxLength", "pattern", "format"},
	"number":  nil,
	"integer": nil,
	"boolean": nil,
	"null":    nil,
}

func (c *schemaCompiler) schema(s any, path string) (*expr, error) {
	if c.depth++; c.depth > maxSchemaDepth {
		return nil, errf("JSON schema %s: subschemas nest deeper than %d", abbrev(path, 80), maxSchemaDepth)
	}
	defer func() { c.depth-- }()
	e, err := c.subschema(s, path)
	if err != nil {
		return nil, err
	}
	return named(e, "JSON schema "+abbrev(path, 80)), nil
}

func (c *schemaCompiler) subschema(s any, path string) (*expr, error) {
	switch s := s.(type) {
	case bool:
		if s {
			return c.anyValue(), nil
		}
		return nothing, nil
	case *omap:
		return c.object(s, path)
	}
	return nil, errf("JSON schema %s: a schema must be an object or a boolean, found %s", path, jsonText(s))
}

func (c *schemaCompiler) object(s *omap, path string) (*expr, error) {
	if r, ok := s.get("$ref"); ok {
		ref, _ := r.(string)
		return c.ref(ref, path)
	}
	if v, ok := s.get("const"); ok {
		return lit(jsonText(v)), nil
	}
	if v, ok := s.get("enum"); ok {
		vals, ok := v.([]any)
		if !ok {
			return nil, errf("JSON schema %s/enum: not an array", path)
		}
		var alts []*expr
		for _, x := range vals {
			alts = append(alts, lit(jsonText(x)))
		}
		return alt(alts...), nil
	}
	for _, comb := range []string{"anyOf", "allOf"} {
		v, ok := s.get(comb)
		if !ok {
			continue
		}
		subs, ok := v.([]any)
		if !ok || len(subs) == 0 {
			return nil, errf("JSON schema %s/%s: not a non-empty array", path, comb)
		}
		if comb == "allOf" && len(subs) != 1 {
			return nil, errf("JSON schema %s/allOf: only one schema is supported, found %d", path, len(subs))
		}
		var alts []*expr
		for i, sub := range subs {
			e, err := c.schema(sub, fmt.Sprintf("%s/%s/%d", path, comb, i))
			if err != nil {
				return nil, err
			}
			alts = append(alts, e)
		}
		return alt(alts...), nil
	}
	for _, k := range []string{"oneOf", "not", "if", "then", "else", "patternProperties", "minimum", "maximum",
		"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems", "contains", "prefixItems",
		"minProperties", "maxProperties", "dependentRequired", "propertyNames", "unevaluatedProperties"} {
		if _, ok := s.get(k); ok {
			return nil, errf("JSON schema %s: keyword %q is not supported", path, k)
		}
	}
	var types []string
	switch t := s.vals["type"].(type) {
	case nil:
		switch {
		case s.vals["properties"] != nil || s.vals["additionalProperties"] != nil || s.vals["required"] != nil:
			types = []string{"object"}
		case s.vals["items"] != nil:
			types = []string{"array"}
		case s.vals["minLength"] != nil || s.vals["maxLength"] != nil || s.vals["pattern"] != nil || s.vals["format"] != nil:
			types = []string{"string"}
		default:
			if err := c.onlyKnown(s, path, nil); err != nil {
				return nil, err
			}
			return c.anyValue(), nil
		}
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			ts, ok := x.(string)
			if !ok {
				return nil, errf("JSON schema %s/type: %s is not a type name", path, jsonText(x))
			}
			types = append(types, ts)
		}
	default:
		return nil, errf("JSON schema %s/type: %s is not a type name", path, jsonText(t))
	}
	var known []string
	for _, t := range types {
		kw, ok := keywordsOf[t]
		if !ok {
			return nil, errf("JSON schema %s/type: unknown type %q", path, t)
		}
		known = append(known, kw...)
	}
	if err := c.onlyKnown(s, path, known); err != nil {
		return nil, err
	}
	var alts []*expr
	for _, t := range types {
		e, err := c.typed(t, s, path)
		if err != nil {
			return nil, err
		}
		alts = append(alts, e)
	}
	return alt(alts...), nil
}

// onlyKnown rejects keywords that are neither annotations, "type", nor in known.
func (c *schemaCompiler) onlyKnown(s *omap, path string, known []string) error {
	for _, k := range s.keys {
		if k != "type" && !annotations[k] && !slices.Contains(known, k) {
			return errf("JSON schema %s: keyword %q is not supported here", path, k)
		}
	}
	return nil
}

func (c *schemaCompiler) intKeyword(s *omap, path, k string, def int) (int, error) {
	v, ok := s.get(k)
	if !ok {
		return def, nil
	}
	n, ok := v.(json.Number)
	i, err := n.Int64()
	if !ok || err != nil || i < 0 || i > maxRepeat {
		return 0, errf("JSON schema %s/%s: %s is not an integer in 0..%d", path, k, jsonText(v), maxRepeat)
	}
	return int(i), nil
}

func (c *schemaCompiler) typed(t string, s *omap, path string) (*expr, error) {
	switch t {
	case "null":
		return lit("null"), nil
	case "boolean":
		return alt(lit("true"), lit("false")), nil
	case "integer":
		return integerExpr(), nil
	case "number":
		return numberExpr(), nil
	case "string":
		return c.stringSchema(s, path)
	case "array":
		return c.arraySchema(s, path)
	case "object":
		return c.objectSchema(s, path)
	}
	panic("grammar: typed called with unknown type " + t)
}

func integerExpr() *expr {
	digits := byteRange('0', '9')
	return seq(opt(lit("-")), alt(lit("0"), seq(byteRange('1', '9'), repeat(digits, 0, 15))))
}

func numberExpr() *expr {
	digits := byteRange('0', '9')
	frac := seq(lit("."), repeat(digits, 1, 15))
	exp := seq(alt(lit("e"), lit("E")), opt(alt(lit("+"), lit("-"))), repeat(digits, 1, 2))
	return seq(integerExpr(), opt(frac), opt(exp))
}

// hexDigit is [0-9a-fA-F].
func hexDigit() *expr { return alt(byteRange('0', '9'), byteRange('a', 'f'), byteRange('A', 'F')) }

// jsonChars spells a set of code points as they may appear inside a JSON string: printable characters as
// themselves, '"' and '\' escaped, control characters by their short escape or \u00XX (lowercase hex).
func jsonChars(cls runeClass) *expr {
	cls = cls.normalize()
	plain := cls.minus(runeClass{{0, 0x1F}, {'"', '"'}, {'\\', '\\'}})
	var alts []*expr
	if len(plain) > 0 {
		alts = append(alts, plain.toExpr())
	}
	short := map[rune]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}
	var shortSet byteSet
	var hex [2]byteSet // \u000X and \u001X: the last digit per high digit
	for r := rune(0); r <= '\\'; r++ {
		if r >= 0x20 && r != '"' && r != '\\' || !cls.has(r) {
			continue
		}
		if c, ok := short[r]; ok {
			shortSet.add(c, c)
			continue
		}
		d := "0123456789abcdef"[r&15]
		hex[r>>4].add(d, d)
	}
	var esc []*expr // what may follow the backslash
	if !shortSet.empty() {
		esc = append(esc, bytesOf(shortSet))
	}
	var u []*expr
	for hi, set := range hex {
		if !set.empty() {
			u = append(u, seq(lit(string(rune('0'+hi))), bytesOf(set)))
		}
	}
	if len(u) > 0 {
		esc = append(esc, seq(lit("u00"), alt(u...)))
	}
	if len(esc) > 0 {
		alts = append(alts, seq(lit(`\`), alt(esc...)))
	}
	return alt(alts...)
}

// stringChar is one code point of an unconstrained JSON string: any character but '"', '\' and the controls as
// itself, or an escape: \" \\ \/ \b \f \n \r \t, or \u with four hex digits naming anything but a surrogate
// (so that each escape is exactly one code point of the decoded string).
func stringChar() *expr {
	h := hexDigit()
	nonSurrogate := alt(
		seq(alt(byteRange('0', '9'), byteRange('a', 'c'), byteRange('A', 'C'), byteRange('e', 'f'), byteRange('E', 'F')), h, h, h),
		seq(alt(lit("d"), lit("D")), byteRange('0', '7'), h, h))
	var short byteSet
	for _, c := range []byte(`"\/bfnrt`) {
		short.add(c, c)
	}
	plain := anyRune.minus(runeClass{{0, 0x1F}, {'"', '"'}, {'\\', '\\'}})
	return alt(plain.toExpr(), seq(lit(`\`), alt(bytesOf(short), seq(lit("u"), nonSurrogate))))
}

// formats are the string formats as regular expressions over their (escape-free) characters.
var formats = map[string]string{
	"date":      `[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))`,
	"time":      `(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,6})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])`,
	"uuid":      `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
	"ipv4":      `(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`,
	"email":     `[a-zA-Z0-9_+-]+(?:\.[a-zA-Z0-9_+-]+)*@[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+`,
	"date-time": "",
}

func (c *schemaCompiler) stringSchema(s *omap, path string) (*expr, error) {
	lo, err := c.intKeyword(s, path, "minLength", 0)
	if err != nil {
		return nil, err
	}
	hi, err := c.intKeyword(s, path, "maxLength", -1)
	if err != nil {
		return nil, err
	}
	if hi >= 0 && hi < lo {
		return nil, errf("JSON schema %s: maxLength %d < minLength %d", path, hi, lo)
	}
	q := lit(`"`)
	pat, hasPat := s.get("pattern")
	f, hasFormat := s.get("format")
	if (hasPat || hasFormat) && (lo > 0 || hi >= 0) {
		return nil, errf("JSON schema %s: minLength/maxLength together with pattern or format are not supported", path)
	}
	if hasFormat {
		name, _ := f.(string)
		re, ok := formats[name]
		if !ok {
			return nil, errf("JSON schema %s/format: format %q is not supported", path, jsonText(f))
		}
		if name == "date-time" {
			re = formats["date"] + "T" + formats["time"]
		}
		e, err := parseRegexExpr(re, jsonChars)
		if err != nil {
			return nil, err
		}
		if hasPat {
			return nil, errf("JSON schema %s: pattern together with format is not supported", path)
		}
		return seq(q, e, q), nil
	}
	if hasPat {
		ps, ok := pat.(string)
		if !ok {
			return nil, errf("JSON schema %s/pattern: not a string", path)
		}
		e, err := parseRegexExpr(ps, jsonChars)
		if err != nil {
			return nil, errAt(fmt.Sprintf("JSON schema %s/pattern", path), err)
		}
		// A pattern too large to determinize would otherwise be reported against the whole schema's rule.
		alone := newGrammar()
		alone.root = alone.define("pattern", e)
		if _, err := Compile(alone); err != nil {
			return nil, errAt(fmt.Sprintf("JSON schema %s/pattern %q", path, ps), err)
		}
		// Schema patterns search the string: unanchored ends admit anything.
		anyChars := star(stringChar())
		if !strings.HasPrefix(ps, "^") {
			e = seq(anyChars, e)
		}
		if !strings.HasSuffix(ps, "$") || strings.HasSuffix(ps, `\$`) {
			e = seq(e, anyChars)
		}
		return seq(q, e, q), nil
	}
	return seq(q, repeat(stringChar(), lo, hi), q), nil
}

func (c *schemaCompiler) arraySchema(s *omap, path string) (*expr, error) {
	lo, err := c.intKeyword(s, path, "minItems", 0)
	if err != nil {
		return nil, err
	}
	hi, err := c.intKeyword(s, path, "maxItems", -1)
	if err != nil {
		return nil, err
	}
	if hi >= 0 && hi < lo {
		return nil, errf("JSON schema %s: maxItems %d < minItems %d", path, hi, lo)
	}
	item := c.anyValue()
	if it, ok := s.get("items"); ok {
		if item, err = c.schema(it, path+"/items"); err != nil {
			return nil, err
		}
	}
	open, close, sep := seq(lit("["), c.ws), seq(c.ws, lit("]")), seq(c.ws, lit(","), c.ws)
	more := func(n int) int {
		if n < 0 {
			return -1
		}
		return n - 1
	}
	if hi == 0 {
		return seq(open, close), nil
	}
	items := seq(item, repeat(seq(sep, item), max(lo-1, 0), more(hi)))
	if lo == 0 {
		items = opt(items)
	}
	return seq(open, items, close), nil
}

func (c *schemaCompiler) objectSchema(s *omap, path string) (*expr, error) {
	open, close := seq(lit("{"), c.ws), seq(c.ws, lit("}"))
	sep := seq(c.ws, lit(","), c.ws)
	member := func(key string, v *expr) *expr { return seq(lit(jsonText(key)), c.ws, lit(":"), c.ws, v) }
	var props *omap
	if p, ok := s.get("properties"); ok {
		if props, ok = p.(*omap); !ok {
			return nil, errf("JSON schema %s/properties: not an object", path)
		}
	}
	required := map[string]bool{}
	if r, ok := s.get("required"); ok {
		list, ok := r.([]any)
		if !ok {
			return nil, errf("JSON schema %s/required: not an array", path)
		}
		for _, x := range list {
			k, ok := x.(string)
			if !ok {
				return nil, errf("JSON schema %s/required: %s is not a string", path, jsonText(x))
			}
			if props == nil || props.vals[k] == nil {
				return nil, errf("JSON schema %s/required: %q is not a listed property", path, k)
			}
			required[k] = true
		}
	}
	if ap, ok := s.get("additionalProperties"); ok && ap != false {
		if props != nil && len(props.keys) > 0 {
			return nil, errf("JSON schema %s: additionalProperties together with properties is not supported (use additionalProperties: false)", path)
		}
		v, err := c.schema(ap, path+"/additionalProperties")
		if err != nil {
			return nil, err
		}
		kv := seq(c.stringValue(), c.ws, lit(":"), c.ws, v)
		return seq(open, opt(seq(kv, star(seq(sep, kv)))), close), nil
	}
	if props == nil || len(props.keys) == 0 {
		return seq(open, close), nil
	}
	n := len(props.keys)
	members := make([]*expr, n)
	for i, k := range props.keys {
		v, err := c.schema(props.vals[k], path+"/properties/"+k)
		if err != nil {
			return nil, err
		}
		members[i] = member(k, v)
	}
	// rest[i]: the listed properties from i on, each after a comma (optional ones may be left out);
	// first[i]: the same without the leading comma of the first one present.
	rest := make([]*expr, n+1)
	rest[n] = empty
	for i := n - 1; i >= 0; i-- {
		m := seq(sep, members[i])
		if !required[props.keys[i]] {
			m = opt(m)
		}
		rest[i] = seq(m, rest[i+1])
	}
	first := empty
	for i := n - 1; i >= 0; i-- {
		if required[props.keys[i]] {
			first = seq(members[i], rest[i+1])
		} else {
			first = alt(seq(members[i], rest[i+1]), first)
		}
	}
	return seq(open, first, close), nil
}

// stringValue is any JSON string.
func (c *schemaCompiler) stringValue() *expr { return seq(lit(`"`), star(stringChar()), lit(`"`)) }

// anyValue references the rule for any JSON value (recursive: objects and arrays hold values).
func (c *schemaCompiler) anyValue() *expr {
	if c.anyS {
		return refTo(c.anyV)
	}
	c.anyS = true
	c.anyV = c.g.declare("json-value")
	v := refTo(c.anyV)
	sep := seq(c.ws, lit(","), c.ws)
	kv := seq(c.stringValue(), c.ws, lit(":"), c.ws, v)
	obj := seq(lit("{"), c.ws, opt(seq(kv, star(seq(sep, kv)))), c.ws, lit("}"))
	arr := seq(lit("["), c.ws, opt(seq(v, star(seq(sep, v)))), c.ws, lit("]"))
	c.g.define("json-value", alt(obj, arr, c.stringValue(), numberExpr(), lit("true"), lit("false"), lit("null")))
	return v
}

// ref resolves a local JSON pointer to a rule (one per target, so recursion becomes a rule cycle).
func (c *schemaCompiler) ref(ref, path string) (*expr, error) {
	if i, ok := c.refs[ref]; ok {
		return refTo(i), nil
	}
	if !strings.HasPrefix(ref, "#") {
		return nil, errf("JSON schema %s/$ref: %q is not a local reference (#/...)", path, ref)
	}
	target := c.root
	if ptr := strings.TrimPrefix(ref, "#"); ptr != "" {
		for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			m, ok := target.(*omap)
			if !ok {
				return nil, errf("JSON schema %s/$ref: %q does not resolve", path, ref)
			}
			if target, ok = m.get(part); !ok {
				return nil, errf("JSON schema %s/$ref: %q does not resolve (no %q)", path, ref, part)
			}
		}
	}
	i := c.g.declare("ref " + ref)
	c.refs[ref] = i
	body, err := c.schema(target, ref)
	if err != nil {
		return nil, err
	}
	c.g.rules[i].body = body
	return refTo(i), nil
}

// jsonText is v's compact JSON encoding (HTML characters unescaped); keys of ordered objects keep their order.
func jsonText(v any) string {
	var sb strings.Builder
	writeJSON(&sb, v)
	return sb.String()
}

func writeJSON(sb *strings.Builder, v any) {
	switch v := v.(type) {
	case *omap:
		sb.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSON(sb, k)
			sb.WriteByte(':')
			writeJSON(sb, v.vals[k])
		}
		sb.WriteByte('}')
	case []any:
		sb.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSON(sb, x)
		}
		sb.WriteByte(']')
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v) // strings, json.Number, bool, nil: cannot fail
		sb.WriteString(strings.TrimSuffix(buf.String(), "\n"))
	}
}
