package schema

import (
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// protoFast encodes proto3 JSON as Protobuf binary directly, reading the
// JSON in place (as the Avro encoder does), for messages made of scalars,
// enums, strings, bytes, nested messages, repeated fields and maps in
// proto3 files. Other messages (proto2 and editions files, the
// well-known types, groups) return nil from compileProtoFast and go
// through protojson.
type protoFast struct {
	root *fastMessage
	sc   scanner
	// seen marks the fields given in the objects being encoded, each
	// message level after its parents'.
	seen []bool
	text []byte // decoded strings
	b64  []byte // decoded bytes
}

// fastMessage is a compiled message.
type fastMessage struct {
	name   string
	fields []fastField
	// byName finds a field by its JSON name and its proto name.
	byName map[string]int
	// oneofs is the number of oneofs; fastField.oneof indexes them.
	oneofs int
}

// fastField is one field of a fastMessage.
type fastField struct {
	name     string // the proto name, for paths
	jsonName string
	num      protowire.Number
	kind     protoreflect.Kind
	list     bool
	packed   bool
	presence bool // explicit presence: written even when zero
	oneof    int  // -1: not in a oneof
	message  *fastMessage
	enum     protoreflect.EnumDescriptor
	// enumValues are the enum's numbers by name.
	enumValues map[string]int32
	// mapKey and mapValue are a map field's entry fields.
	mapKey, mapValue *fastField
}

// compileProtoFast compiles md for direct encoding; nil when it, or a
// message it holds, needs protojson.
func compileProtoFast(md protoreflect.MessageDescriptor) *protoFast {
	c := &fastCompiler{done: map[protoreflect.FullName]*fastMessage{}}
	root := c.message(md)
	if c.unsupported {
		return nil
	}
	return &protoFast{root: root}
}

// fastCompiler compiles messages once each (recursive messages work).
type fastCompiler struct {
	done        map[protoreflect.FullName]*fastMessage
	unsupported bool
}

// message compiles one message.
func (c *fastCompiler) message(md protoreflect.MessageDescriptor) *fastMessage {
	if m, ok := c.done[md.FullName()]; ok {
		return m
	}
	if md.ParentFile().Syntax() != protoreflect.Proto3 || strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		c.unsupported = true
		return nil
	}
	m := &fastMessage{name: string(md.FullName()), byName: map[string]int{}}
	c.done[md.FullName()] = m
	oneofs := map[protoreflect.FullName]int{}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		f := c.field(fd)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			n, ok := oneofs[od.FullName()]
			if !ok {
				n = len(oneofs)
				oneofs[od.FullName()] = n
			}
			f.oneof = n
		}
		m.fields = append(m.fields, f)
		m.byName[fd.JSONName()] = i
		m.byName[string(fd.Name())] = i
	}
	m.oneofs = len(oneofs)
	return m
}

// field compiles one field.
func (c *fastCompiler) field(fd protoreflect.FieldDescriptor) fastField {
	f := fastField{name: string(fd.Name()), jsonName: fd.JSONName(), num: fd.Number(), kind: fd.Kind(), list: fd.IsList(), packed: fd.IsPacked(),
		presence: fd.HasPresence(), oneof: -1}
	switch fd.Kind() {
	case protoreflect.GroupKind:
		c.unsupported = true
	case protoreflect.EnumKind:
		f.enum, f.enumValues = fd.Enum(), map[string]int32{}
		values := fd.Enum().Values()
		for i := range values.Len() {
			f.enumValues[string(values.Get(i).Name())] = int32(values.Get(i).Number())
		}
	case protoreflect.MessageKind:
		if fd.IsMap() {
			k, v := c.field(fd.MapKey()), c.field(fd.MapValue())
			f.mapKey, f.mapValue = &k, &v
			f.list = false
			break
		}
		f.message = c.message(fd.Message())
	}
	return f
}

// appendPayload appends the Protobuf binary of the JSON text to dst.
func (p *protoFast) appendPayload(dst, text []byte) ([]byte, error) {
	p.sc = scanner{data: text}
	p.seen = p.seen[:0]
	out, err := p.message(dst, p.root, 0)
	if err == nil && p.sc.ws() != 0 {
		err = p.syntax("unexpected data after the value")
	}
	if err != nil {
		return dst, finishPath(err)
	}
	return out, nil
}

// message encodes the members of a JSON object as m's fields, in the
// order they come.
func (p *protoFast) message(dst []byte, m *fastMessage, depth int) ([]byte, error) {
	if depth > maxDepth {
		return dst, p.syntax("nested too deep")
	}
	if !p.sc.consume('{') {
		return dst, p.failf("expected an object for %s, got %s", m.name, p.got())
	}
	base := len(p.seen)
	for range len(m.fields) + m.oneofs {
		p.seen = append(p.seen, false)
	}
	out, err := p.members(dst, m, base, depth)
	p.seen = p.seen[:base]
	return out, err
}

// members encodes the members of an object, after its {, with the seen
// marks from base on.
func (p *protoFast) members(dst []byte, m *fastMessage, base, depth int) ([]byte, error) {
	if p.sc.consume('}') {
		return dst, nil
	}
	next := 0 // the field after the last one: the likeliest next member
	for {
		i, err := p.memberName(m, next)
		if err != nil {
			return dst, err
		}
		next = i + 1
		f := &m.fields[i]
		if p.seen[base+i] {
			return dst, addStep(p.failf("given twice"), pathElem{field: f.name})
		}
		p.seen[base+i] = true
		if dst, err = p.field(dst, m, f, base, depth); err != nil {
			return dst, addStep(err, pathElem{field: f.name})
		}
		if p.sc.consume('}') {
			return dst, nil
		}
		if !p.sc.consume(',') {
			return dst, p.syntax("expected , or } in an object")
		}
	}
}

// memberName reads a member's name and its colon and returns the index of
// its field; the field declared after the last member's is compared in
// place first, as members mostly come in declaration order.
func (p *protoFast) memberName(m *fastMessage, next int) (int, error) {
	if next < len(m.fields) && p.sc.ws() == '"' {
		f, d, at := &m.fields[next], p.sc.data, p.sc.pos+1
		for _, name := range [2]string{f.jsonName, f.name} {
			if end := at + len(name); end < len(d) && d[end] == '"' && string(d[at:end]) == name {
				p.sc.pos = end + 1
				if !p.sc.consume(':') {
					return 0, p.syntax("expected : after a field name")
				}
				return next, nil
			}
		}
	}
	raw, escaped, ok := p.sc.str()
	if !ok || !p.sc.consume(':') {
		return 0, p.syntax("expected a field name and : in an object")
	}
	name := raw
	if escaped {
		if p.text, ok = decodeString(p.text[:0], raw, true); !ok {
			return 0, p.syntax("invalid string escape")
		}
		name = p.text
	}
	i, found := m.byName[string(name)]
	if !found {
		return 0, addStep(p.failf("unknown field in %s", m.name), pathElem{field: string(name)})
	}
	return i, nil
}

// field encodes one member's value as field f of m.
func (p *protoFast) field(dst []byte, m *fastMessage, f *fastField, base, depth int) ([]byte, error) {
	if p.sc.kind() == kindNull {
		p.sc.pos += 4 // null: the field's default, nothing written
		return dst, nil
	}
	if f.oneof >= 0 {
		at := base + len(m.fields) + f.oneof
		if p.seen[at] {
			return dst, p.failf("a second field of the same oneof")
		}
		p.seen[at] = true
	}
	switch {
	case f.mapKey != nil:
		return p.mapField(dst, f, depth)
	case f.list:
		return p.listField(dst, f, depth)
	}
	return p.single(dst, f, !f.presence, depth)
}
