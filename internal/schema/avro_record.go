package schema

import (
	"errors"
	"strings"
)

// record encodes a record from a JSON object. Fields are written in the
// schema's order: one that comes in its turn is encoded at once, one that
// comes early is remembered (its span) and encoded when its turn comes; a
// missing field takes its default. A field the schema lacks, or given
// twice, fails.
func (e *avroEncoder) record(dst []byte, n *avroNode, depth int) ([]byte, error) {
	if e.sc.kind() != kindObject {
		return dst, e.mismatch(n)
	}
	e.sc.pos++
	start, base, nf := len(dst), len(e.spans), len(n.fields)
	for range nf {
		e.spans = append(e.spans, span{})
	}
	out, err := e.members(dst, n, base, depth)
	e.spans = e.spans[:base]
	if err != nil {
		return dst[:start], err
	}
	return out, nil
}

// members encodes the members of a record's object, after its {, with
// the spans from base on.
func (e *avroEncoder) members(dst []byte, n *avroNode, base, depth int) ([]byte, error) {
	next, nf := 0, len(n.fields)
	var err error
	if !e.sc.consume('}') {
		for {
			var i int
			if i, err = e.memberName(n, next); err != nil {
				return dst, err
			}
			switch {
			case i < next || e.spans[base+i].set:
				return dst, e.fieldErrorf(n.fields[i].name, "given twice")
			case i == next:
				if dst, err = e.field(dst, n, i, depth); err != nil {
					return dst, err
				}
				next++
				if next < nf && e.spans[base+next].set {
					if dst, next, err = e.pendingFields(dst, n, base, next, depth); err != nil {
						return dst, err
					}
				}
			default:
				e.sc.ws()
				from := e.sc.pos
				if !e.sc.skip(depth + 1) {
					return dst, e.syntax("invalid value of field " + n.fields[i].name)
				}
				e.spans[base+i] = span{start: from, end: e.sc.pos, set: true}
			}
			if e.sc.consume('}') {
				break
			}
			if !e.sc.consume(',') {
				return dst, e.syntax("expected , or } in an object")
			}
		}
	}
	for ; next < nf; next++ {
		f := &n.fields[next]
		switch {
		case e.spans[base+next].set:
			if dst, err = e.fieldAt(dst, n, base, next, depth); err != nil {
				return dst, err
			}
		case f.hasDef:
			dst = append(dst, f.def...)
		default:
			return dst, e.fieldErrorf(f.name, "missing (%s has no default)", f.node.name)
		}
	}
	return dst, nil
}

// memberName reads a member's name and its colon and returns the index of
// its field; the field whose turn it is (next) is tried first.
func (e *avroEncoder) memberName(n *avroNode, next int) (int, error) {
	if next < len(n.fields) && e.sc.ws() == '"' {
		// The name whose turn it is, compared in place: most objects list
		// the fields in the schema's order.
		name, d, p := n.fields[next].name, e.sc.data, e.sc.pos+1
		if end := p + len(name); end < len(d) && d[end] == '"' && string(d[p:end]) == name {
			e.sc.pos = end + 1
			if e.sc.consume(':') {
				return next, nil
			}
			return 0, e.syntax("expected : after a field name")
		}
	}
	raw, escaped, ok := e.sc.str()
	if !ok || !e.sc.consume(':') {
		return 0, e.syntax("expected a field name and : in an object")
	}
	if !escaped && next < len(n.fields) && string(raw) == n.fields[next].name {
		return next, nil
	}
	name := raw
	if escaped {
		if e.text, ok = decodeString(e.text[:0], raw, true); !ok {
			return 0, e.syntax("invalid string escape")
		}
		name = e.text
	}
	i, found := n.fieldIndex[string(name)]
	if !found {
		return 0, e.unknownField(n, name)
	}
	return i, nil
}

// field encodes the value at the scanner as field i of n.
func (e *avroEncoder) field(dst []byte, n *avroNode, i, depth int) ([]byte, error) {
	dst, err := e.value(dst, n.fields[i].node, depth+1)
	if err != nil {
		return dst, addStep(err, pathElem{field: n.fields[i].name})
	}
	return dst, nil
}

// fieldAt encodes field i of n from the span read ahead, then goes back to
// where the scanner was.
func (e *avroEncoder) fieldAt(dst []byte, n *avroNode, base, i, depth int) ([]byte, error) {
	back := e.sc.pos
	e.sc.pos = e.spans[base+i].start
	dst, err := e.field(dst, n, i, depth)
	e.sc.pos = back
	return dst, err
}

// pendingFields encodes the fields read ahead whose turn has come, from
// next on; it returns the next field not yet written.
func (e *avroEncoder) pendingFields(dst []byte, n *avroNode, base, next, depth int) ([]byte, int, error) {
	for next < len(n.fields) && e.spans[base+next].set {
		var err error
		if dst, err = e.fieldAt(dst, n, base, next, depth); err != nil {
			return dst, next, err
		}
		next++
	}
	return dst, next, nil
}

// unknownField is the error of a field the record does not have.
func (e *avroEncoder) unknownField(n *avroNode, name []byte) error {
	names := make([]string, len(n.fields))
	for i, f := range n.fields {
		names[i] = f.name
	}
	return e.fieldErrorf(string(name), "not in record %s (fields: %s)", n.name, strings.Join(names, ", "))
}

// fieldErrorf is the error of field name of the record being encoded.
func (e *avroEncoder) fieldErrorf(name, format string, args ...any) error {
	return addStep(e.failf(format, args...), pathElem{field: name})
}

// union encodes a union value: JSON null for the null branch; a wrapper
// object {"type name": value} naming a branch, as Avro JSON writes
// unions; otherwise, plain JSON, the first branch the value fits.
func (e *avroEncoder) union(dst []byte, n *avroNode, depth int) ([]byte, error) {
	k := e.sc.kind()
	if k == kindNull && n.nullBranch >= 0 {
		e.sc.pos += 4
		return appendLong(dst, int64(n.nullBranch)), nil
	}
	if k == kindObject {
		if out, ok, err := e.wrapped(dst, n, depth); ok {
			return out, err
		}
	}
	mark, pos, spansLen := len(dst), e.sc.pos, len(e.spans)
	var first error
	candidates := 0
	for i, b := range n.branches {
		if !branchAccepts(b, k) {
			continue
		}
		candidates++
		out, err := e.value(appendLong(dst[:mark], int64(i)), b, depth+1)
		if err == nil {
			return out, nil
		}
		if errors.Is(err, ErrSyntax) {
			return dst[:mark], err
		}
		if first == nil {
			first = err
		}
		dst = out[:mark]
		e.sc.pos, e.spans = pos, e.spans[:spansLen]
	}
	if candidates == 1 {
		return dst[:mark], first
	}
	return dst[:mark], e.failf("expected one of %s, got %s", strings.TrimPrefix(n.name, "union "), e.got())
}

// wrapped encodes a union value written as Avro JSON does: an object with
// one member whose name is a branch's type. ok is false, the scanner
// untouched, when the object is not such a wrapper.
func (e *avroEncoder) wrapped(dst []byte, n *avroNode, depth int) (out []byte, ok bool, err error) {
	pos := e.sc.pos
	e.sc.pos++
	raw, _, isStr := e.sc.str()
	i, found := n.branchIndex[string(raw)]
	if !isStr || !found || !e.sc.consume(':') {
		e.sc.pos = pos
		return dst, false, nil
	}
	e.sc.ws()
	valueAt := e.sc.pos
	if !e.sc.skip(depth+1) || !e.sc.consume('}') {
		e.sc.pos = pos
		return dst, false, nil
	}
	end := e.sc.pos
	e.sc.pos = valueAt
	mark := len(dst)
	out, err = e.value(appendLong(dst, int64(i)), n.branches[i], depth+1)
	if err != nil {
		return out[:mark], true, err
	}
	e.sc.pos = end
	return out, true, nil
}

// branchAccepts reports whether a union branch can hold a JSON value of
// kind k, so that only those are tried.
func branchAccepts(b *avroNode, k jsonKind) bool {
	switch b.kind {
	case avroNull:
		return k == kindNull
	case avroBoolean:
		return k == kindBool
	case avroInt, avroLong:
		return k == kindNumber || (k == kindString && acceptsTimeString(b))
	case avroFloat, avroDouble:
		return k == kindNumber
	case avroString, avroEnum:
		return k == kindString
	case avroBytes, avroFixed:
		return k == kindString || (k == kindNumber && b.logical == "decimal")
	case avroArray:
		return k == kindArray
	case avroMap, avroRecord:
		return k == kindObject
	}
	return false
}
