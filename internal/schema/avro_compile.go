package schema

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hamba/avro/v2"
)

// avroKind is the kind of an Avro schema node.
type avroKind uint8

const (
	avroNull avroKind = iota
	avroBoolean
	avroInt
	avroLong
	avroFloat
	avroDouble
	avroBytes
	avroString
	avroRecord
	avroEnum
	avroArray
	avroMap
	avroUnion
	avroFixed
)

// avroNode is one node of a compiled Avro schema: what the encoder needs,
// looked up without reflection.
type avroNode struct {
	kind    avroKind
	logical avro.LogicalType
	// scale and precision of a decimal.
	scale, precision int
	// size of a fixed.
	size int
	// name is the type's name in errors and union wrappers: the full name
	// of a named type, else the type's own name (long, array, ...).
	name string
	// short is a named type's name without its namespace.
	short string
	// fields of a record, in the schema's order, and their index by name
	// (aliases included).
	fields     []avroField
	fieldIndex map[string]int
	// symbols of an enum, and their index by name.
	symbols     []string
	symbolIndex map[string]int
	// items of an array, values of a map.
	items *avroNode
	// branches of a union, the index of its null branch (-1: none) and the
	// index of each branch by the names a wrapper may use.
	branches    []*avroNode
	nullBranch  int
	branchIndex map[string]int
}

// avroField is one field of a record.
type avroField struct {
	name string
	node *avroNode
	// def is the field's default, already encoded; hasDef says it has one.
	def    []byte
	hasDef bool
}

// avroCompiler compiles a parsed schema into nodes, each named type once
// (so recursive types work).
type avroCompiler struct {
	named map[string]*avroNode
	// pending are the record fields whose defaults are encoded once every
	// node is compiled.
	pending []pendingDefault
}

// pendingDefault is a field default to encode.
type pendingDefault struct {
	rec   *avroNode
	index int
	value any
}

// compileAvro compiles a parsed Avro schema.
func compileAvro(s avro.Schema) (*avroNode, error) {
	c := &avroCompiler{named: map[string]*avroNode{}}
	root, err := c.compile(s)
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

// compile compiles one schema node.
func (c *avroCompiler) compile(s avro.Schema) (*avroNode, error) {
	switch t := s.(type) {
	case *avro.RefSchema:
		return c.compile(t.Schema())
	case *avro.NullSchema:
		return &avroNode{kind: avroNull, name: "null"}, nil
	case *avro.PrimitiveSchema:
		return primitiveNode(t)
	case *avro.RecordSchema:
		return c.record(t)
	case *avro.EnumSchema:
		if n, ok := c.named[t.FullName()]; ok {
			return n, nil
		}
		n := &avroNode{kind: avroEnum, name: t.FullName(), short: t.Name(), symbols: t.Symbols(), symbolIndex: map[string]int{}}
		for i, sym := range t.Symbols() {
			n.symbolIndex[sym] = i
		}
		c.named[n.name] = n
		return n, nil
	case *avro.FixedSchema:
		if n, ok := c.named[t.FullName()]; ok {
			return n, nil
		}
		n := &avroNode{kind: avroFixed, name: t.FullName(), short: t.Name(), size: t.Size()}
		setLogical(n, t.Logical())
		c.named[n.name] = n
		return n, nil
	case *avro.ArraySchema:
		items, err := c.compile(t.Items())
		if err != nil {
			return nil, err
		}
		return &avroNode{kind: avroArray, name: "array", items: items}, nil
	case *avro.MapSchema:
		values, err := c.compile(t.Values())
		if err != nil {
			return nil, err
		}
		return &avroNode{kind: avroMap, name: "map", items: values}, nil
	case *avro.UnionSchema:
		return c.union(t)
	}
	return nil, schemaErrorf("unsupported Avro type %s", s.Type())
}

// primitiveNode compiles a primitive type, with its logical type.
func primitiveNode(t *avro.PrimitiveSchema) (*avroNode, error) {
	kinds := map[avro.Type]avroKind{avro.Boolean: avroBoolean, avro.Int: avroInt, avro.Long: avroLong, avro.Float: avroFloat,
		avro.Double: avroDouble, avro.Bytes: avroBytes, avro.String: avroString}
	k, ok := kinds[t.Type()]
	if !ok {
		return nil, schemaErrorf("unsupported Avro type %s", t.Type())
	}
	n := &avroNode{kind: k, name: string(t.Type())}
	setLogical(n, t.Logical())
	return n, nil
}

// setLogical records a node's logical type.
func setLogical(n *avroNode, l avro.LogicalSchema) {
	if l == nil {
		return
	}
	n.logical = l.Type()
	if d, ok := l.(*avro.DecimalLogicalSchema); ok {
		n.scale, n.precision = d.Scale(), d.Precision()
	}
}

// record compiles a record, registered by name before its fields so that
// they may refer to it.
func (c *avroCompiler) record(t *avro.RecordSchema) (*avroNode, error) {
	if n, ok := c.named[t.FullName()]; ok {
		return n, nil
	}
	n := &avroNode{kind: avroRecord, name: t.FullName(), short: t.Name(), fieldIndex: map[string]int{}}
	c.named[n.name] = n
	for i, f := range t.Fields() {
		fn, err := c.compile(f.Type())
		if err != nil {
			return nil, err
		}
		n.fields = append(n.fields, avroField{name: f.Name(), node: fn})
		n.fieldIndex[f.Name()] = i
		for _, a := range f.Aliases() {
			if _, taken := n.fieldIndex[a]; !taken {
				n.fieldIndex[a] = i
			}
		}
		if f.HasDefault() {
			c.pending = append(c.pending, pendingDefault{rec: n, index: i, value: f.Default()})
		}
	}
	return n, nil
}

// union compiles a union and the names its wrappers use: a primitive's
// type name, a named type's full name (and its short name when no other
// branch has it), array and map.
func (c *avroCompiler) union(t *avro.UnionSchema) (*avroNode, error) {
	n := &avroNode{kind: avroUnion, nullBranch: -1, branchIndex: map[string]int{}}
	var names []string
	for i, b := range t.Types() {
		bn, err := c.compile(b)
		if err != nil {
			return nil, err
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

// encodeAvroDefault encodes a field's default value (as the schema parser
// read it) with the field's type: a union's default is of its first
// branch, bytes and fixed are strings of code points, as Avro says.
func encodeAvroDefault(n *avroNode, v any) ([]byte, error) {
	text, err := json.Marshal(defaultJSON(v))
	if err != nil {
		return nil, err
	}
	if n.kind == avroUnion {
		e := newAvroEncoder(n.branches[0])
		b, err := e.appendPayload(appendLong(nil, 0), text)
		if err != nil {
			return nil, fmt.Errorf("not a value of the union's first branch %s: %w", n.branches[0].name, err)
		}
		return b, nil
	}
	return newAvroEncoder(n).appendPayload(nil, text)
}

// defaultJSON makes a parsed default marshal as Avro JSON: bytes become
// strings of code points.
func defaultJSON(v any) any {
	switch t := v.(type) {
	case []byte:
		r := make([]rune, len(t))
		for i, b := range t {
			r[i] = rune(b)
		}
		return string(r)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = defaultJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = defaultJSON(x)
		}
		return out
	}
	return v
}
