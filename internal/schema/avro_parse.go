package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// isAvroName reports whether s is an Avro name (of a type, a field, a
// symbol): [A-Za-z_][A-Za-z0-9_]*.
func isAvroName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// primitiveKind returns the kind of a primitive type's name.
func primitiveKind(name string) (avroKind, bool) {
	switch name {
	case "null":
		return avroNull, true
	case "boolean":
		return avroBoolean, true
	case "int":
		return avroInt, true
	case "long":
		return avroLong, true
	case "float":
		return avroFloat, true
	case "double":
		return avroDouble, true
	case "bytes":
		return avroBytes, true
	case "string":
		return avroString, true
	}
	return 0, false
}

// avroCompiler compiles an Avro schema (its JSON) into nodes, each named
// type once, so that recursive types work, as the Avro specification
// reads schemas: names relative to the enclosing namespace, defaults
// checked against their field's type.
type avroCompiler struct {
	named map[string]*avroNode
	// pending are the record fields whose defaults are encoded once every
	// node is compiled.
	pending []pendingDefault
}

// pendingDefault is a field default to encode: its JSON text.
type pendingDefault struct {
	rec   *avroNode
	index int
	value json.RawMessage
}

// compileAvroText compiles an Avro schema's JSON text.
func compileAvroText(text string) (*avroNode, error) {
	var doc any
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, schemaErrorf("not JSON: %v", err)
	}
	if d.More() {
		return nil, schemaErrorf("unexpected data after the schema")
	}
	c := &avroCompiler{named: map[string]*avroNode{}}
	root, err := c.compile(doc, "", 0)
	if err != nil {
		return nil, err
	}
	for _, p := range c.pending {
		f := &p.rec.fields[p.index]
		def, err := encodeAvroDefault(f.node, p.value)
		if err != nil {
			return nil, schemaErrorf("record %s: default of field %s: %v", p.rec.name, f.name, err)
		}
		f.def, f.hasDef = def, true
	}
	return root, nil
}

// compile compiles one schema: a type name, a union (array) or a type
// object, in namespace ns.
func (c *avroCompiler) compile(v any, ns string, depth int) (*avroNode, error) {
	if depth > maxDepth {
		return nil, schemaErrorf("schema nested too deep")
	}
	switch t := v.(type) {
	case string:
		return c.reference(t, ns)
	case []any:
		return c.union(t, ns, depth)
	case map[string]any:
		return c.object(t, ns, depth)
	}
	return nil, schemaErrorf("not an Avro schema: %v", v)
}

// reference compiles a type given by name: a primitive or a named type
// defined before.
func (c *avroCompiler) reference(name, ns string) (*avroNode, error) {
	if k, ok := primitiveKind(name); ok {
		return &avroNode{kind: k, name: name}, nil
	}
	full := fullName(name, ns)
	if n, ok := c.named[full]; ok {
		return n, nil
	}
	if n, ok := c.named[name]; ok {
		return n, nil
	}
	return nil, schemaErrorf("unknown type %q", name)
}

// object compiles a type object.
func (c *avroCompiler) object(o map[string]any, ns string, depth int) (*avroNode, error) {
	typ, ok := o["type"]
	if !ok {
		return nil, schemaErrorf("a type object needs a type")
	}
	name, _ := typ.(string)
	switch name {
	case "record", "error":
		return c.record(o, ns, depth)
	case "enum":
		return c.enum(o, ns)
	case "fixed":
		n, err := c.define(o, ns, avroFixed)
		if err != nil {
			return nil, err
		}
		size, ok := intAttr(o, "size")
		if !ok || size < 0 {
			return nil, schemaErrorf("fixed %s needs a size", n.name)
		}
		n.size = size
		setLogical(n, o)
		return n, nil
	case "array", "map":
		key := map[string]string{"array": "items", "map": "values"}[name]
		inner, ok := o[key]
		if !ok {
			return nil, schemaErrorf("%s needs %s", name, key)
		}
		items, err := c.compile(inner, ns, depth+1)
		if err != nil {
			return nil, err
		}
		k := map[string]avroKind{"array": avroArray, "map": avroMap}[name]
		return &avroNode{kind: k, name: name, items: items}, nil
	}
	if name == "" { // {"type": {...}} or {"type": [...]}
		return c.compile(typ, ns, depth+1)
	}
	if k, ok := primitiveKind(name); ok {
		n := &avroNode{kind: k, name: name}
		setLogical(n, o)
		return n, nil
	}
	return c.reference(name, ns)
}

// define registers a named type: its full name from name and namespace.
func (c *avroCompiler) define(o map[string]any, ns string, k avroKind) (*avroNode, error) {
	name, _ := o["name"].(string)
	if space, ok := o["namespace"].(string); ok && !strings.Contains(name, ".") {
		ns = space
	}
	full := fullName(name, ns)
	short := full[strings.LastIndexByte(full, '.')+1:]
	if !isAvroName(short) {
		return nil, schemaErrorf("invalid name %q", name)
	}
	if _, dup := c.named[full]; dup {
		return nil, schemaErrorf("%s is defined twice", full)
	}
	if _, prim := primitiveKind(full); prim {
		return nil, schemaErrorf("%s is a primitive type's name", full)
	}
	n := &avroNode{kind: k, name: full, short: short}
	c.named[full] = n
	return n, nil
}

// fullName is the full name of name in namespace ns.
func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

// namespaceOf is the namespace a named type's full name gives its
// members.
func namespaceOf(full string) string {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i]
	}
	return ""
}

// record compiles a record, registered by name before its fields so that
// they may refer to it.
func (c *avroCompiler) record(o map[string]any, ns string, depth int) (*avroNode, error) {
	n, err := c.define(o, ns, avroRecord)
	if err != nil {
		return nil, err
	}
	n.fieldIndex = map[string]int{}
	fields, ok := o["fields"].([]any)
	if !ok {
		return nil, schemaErrorf("record %s needs fields", n.name)
	}
	inner := namespaceOf(n.name)
	for i, raw := range fields {
		f, ok := raw.(map[string]any)
		name, _ := f["name"].(string)
		if !ok || !isAvroName(name) {
			return nil, schemaErrorf("record %s: field %d needs a valid name", n.name, i+1)
		}
		if _, dup := n.fieldIndex[name]; dup {
			return nil, schemaErrorf("record %s: field %s is defined twice", n.name, name)
		}
		typ, ok := f["type"]
		if !ok {
			return nil, schemaErrorf("record %s: field %s needs a type", n.name, name)
		}
		fn, err := c.compile(typ, inner, depth+1)
		if err != nil {
			return nil, schemaErrorf("record %s: field %s: %v", n.name, name, err)
		}
		n.fields = append(n.fields, avroField{name: name, node: fn})
		n.fieldIndex[name] = i
		if aliases, ok := f["aliases"].([]any); ok {
			for _, a := range aliases {
				if s, ok := a.(string); ok {
					if _, taken := n.fieldIndex[s]; !taken {
						n.fieldIndex[s] = i
					}
				}
			}
		}
		if def, ok := f["default"]; ok {
			text, err := json.Marshal(def)
			if err != nil {
				return nil, schemaErrorf("record %s: default of field %s: %v", n.name, name, err)
			}
			c.pending = append(c.pending, pendingDefault{rec: n, index: i, value: text})
		}
	}
	return n, nil
}

// enum compiles an enum.
func (c *avroCompiler) enum(o map[string]any, ns string) (*avroNode, error) {
	n, err := c.define(o, ns, avroEnum)
	if err != nil {
		return nil, err
	}
	symbols, ok := o["symbols"].([]any)
	if !ok {
		return nil, schemaErrorf("enum %s needs symbols", n.name)
	}
	n.symbolIndex = map[string]int{}
	for i, s := range symbols {
		sym, ok := s.(string)
		if !ok || !isAvroName(sym) {
			return nil, schemaErrorf("enum %s: invalid symbol %v", n.name, s)
		}
		if _, dup := n.symbolIndex[sym]; dup {
			return nil, schemaErrorf("enum %s: symbol %s twice", n.name, sym)
		}
		n.symbols = append(n.symbols, sym)
		n.symbolIndex[sym] = i
	}
	return n, nil
}

// union compiles a union and the names its wrappers use: a primitive's
// type name, a named type's full name (and its short name when no other
// branch has it), array and map. A union holds no union and no two
// branches of the same type.
func (c *avroCompiler) union(branches []any, ns string, depth int) (*avroNode, error) {
	n := &avroNode{kind: avroUnion, nullBranch: -1, branchIndex: map[string]int{}}
	var names []string
	for i, b := range branches {
		bn, err := c.compile(b, ns, depth+1)
		if err != nil {
			return nil, err
		}
		if bn.kind == avroUnion {
			return nil, schemaErrorf("a union within a union")
		}
		if _, dup := n.branchIndex[bn.name]; dup {
			return nil, schemaErrorf("union has %s twice", bn.name)
		}
		n.branches = append(n.branches, bn)
		if bn.kind == avroNull {
			n.nullBranch = i
		}
		n.branchIndex[bn.name] = i
		names = append(names, bn.name)
	}
	for i, bn := range n.branches {
		if _, taken := n.branchIndex[bn.short]; bn.short != "" && !taken {
			n.branchIndex[bn.short] = i
		}
	}
	n.name = "union [" + strings.Join(names, ", ") + "]"
	return n, nil
}

// setLogical records a node's logical type when it is one Avro defines
// for that type and its attributes are valid; otherwise, as the
// specification says, the type is its underlying type.
func setLogical(n *avroNode, o map[string]any) {
	l, _ := o["logicalType"].(string)
	valid := map[string][]avroKind{
		"decimal": {avroBytes, avroFixed}, "uuid": {avroString, avroFixed}, logicalDate: {avroInt},
		logicalTimeMillis: {avroInt}, logicalTimeMicros: {avroLong}, logicalTimestampMillis: {avroLong},
		logicalTimestampMicros: {avroLong}, logicalLocalTSMillis: {avroLong}, logicalLocalTSMicros: {avroLong},
		"duration": {avroFixed},
	}[l]
	ok := false
	for _, k := range valid {
		ok = ok || k == n.kind
	}
	if !ok {
		return
	}
	if l == "decimal" {
		precision, okP := intAttr(o, "precision")
		scale, _ := intAttr(o, "scale")
		if !okP || precision <= 0 || scale < 0 || scale > precision {
			return
		}
		n.precision, n.scale = precision, scale
	}
	if l == "uuid" && n.kind == avroFixed && n.size != 16 {
		return
	}
	n.logical = l
}

// intAttr reads an integer attribute.
func intAttr(o map[string]any, key string) (int, bool) {
	num, ok := o[key].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := num.Int64()
	return int(v), err == nil && v == int64(int(v))
}

// encodeAvroDefault encodes a field's default (its JSON) with the field's
// type: a union's default is of its first branch, bytes and fixed are
// strings of code points, as Avro says.
func encodeAvroDefault(n *avroNode, text json.RawMessage) ([]byte, error) {
	if n.kind == avroUnion {
		b, err := newAvroEncoder(n.branches[0]).appendPayload(appendLong(nil, 0), text)
		if err != nil {
			return nil, fmt.Errorf("not a value of the union's first branch %s: %w", n.branches[0].name, err)
		}
		return b, nil
	}
	return newAvroEncoder(n).appendPayload(nil, bytes.TrimSpace(text))
}
