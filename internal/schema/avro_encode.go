package schema

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// avroEncoder encodes JSON texts as Avro binary, directed by a compiled
// schema: it reads the JSON in place and writes the binary directly, with
// no intermediate values.
type avroEncoder struct {
	root *avroNode
	sc   scanner
	// spans hold the record fields read ahead of their turn (JSON objects
	// need not list fields in the schema's order); each record level uses
	// the entries after those of its parents.
	spans []span
	// text is the scratch of decoded strings.
	text []byte
}

// span is a value read ahead: where it is in the JSON text.
type span struct {
	start, end int
	set        bool
}

// pathElem is one step of the path to a value: errors collect them on
// their way up, so that encoding a value that fits costs no path.
type pathElem struct {
	field string // a record field
	key   []byte // a map key (field == "")
	index int    // an array index (field == "" and key == nil)
}

// newAvroEncoder returns an encoder of the schema root.
func newAvroEncoder(root *avroNode) *avroEncoder { return &avroEncoder{root: root} }

// appendPayload appends the Avro binary of the JSON text to dst.
func (e *avroEncoder) appendPayload(dst, text []byte) ([]byte, error) {
	e.sc = scanner{data: text}
	e.spans = e.spans[:0]
	out, err := e.value(dst, e.root, 0)
	if err == nil && e.sc.ws() != 0 {
		err = e.syntax("unexpected data after the value")
	}
	if err != nil {
		return dst, finishPath(err)
	}
	return out, nil
}

// value encodes the next JSON value as n says.
func (e *avroEncoder) value(dst []byte, n *avroNode, depth int) ([]byte, error) {
	if depth > maxDepth {
		return dst, e.syntax("nested too deep")
	}
	switch n.kind {
	case avroNull:
		if e.sc.kind() == kindNull {
			e.sc.pos += 4
			return dst, nil
		}
	case avroBoolean:
		if e.sc.kind() == kindBool {
			w, _ := e.sc.literal()
			if w == "true" {
				return append(dst, 1), nil
			}
			return append(dst, 0), nil
		}
	case avroInt, avroLong:
		return e.integer(dst, n)
	case avroFloat, avroDouble:
		return e.float(dst, n)
	case avroString:
		return e.string(dst, n)
	case avroBytes, avroFixed:
		return e.bytes(dst, n)
	case avroEnum:
		return e.enum(dst, n)
	case avroArray:
		return e.array(dst, n, depth)
	case avroMap:
		return e.mapValue(dst, n, depth)
	case avroRecord:
		return e.record(dst, n, depth)
	case avroUnion:
		return e.union(dst, n, depth)
	}
	return dst, e.mismatch(n)
}

// integer encodes an int or a long (a date, time or timestamp may also be
// a string).
func (e *avroEncoder) integer(dst []byte, n *avroNode) ([]byte, error) {
	var v int64
	switch e.sc.kind() {
	case kindNumber:
		n64, num, plain, ok := e.sc.integer()
		if !ok {
			return dst, e.syntax("invalid number")
		}
		v = n64
		if !plain {
			if v, ok = parseInt(num); !ok {
				return dst, e.failf("expected %s, got number %s (not an integer in range)", n.name, num)
			}
		}
	case kindString:
		if !acceptsTimeString(n) {
			return dst, e.mismatch(n)
		}
		raw, _, ok := e.sc.str()
		if !ok {
			return dst, e.syntax("invalid string")
		}
		t, err := parseTimeString(n, raw)
		if err != nil {
			return dst, e.failf("%s %s: %v", n.logical, quoteShort(raw), err)
		}
		v = t
	default:
		return dst, e.mismatch(n)
	}
	if n.kind == avroInt && (v < math.MinInt32 || v > math.MaxInt32) {
		return dst, e.failf("expected int, got %d (out of range)", v)
	}
	return appendLong(dst, v), nil
}

// float encodes a float or a double.
func (e *avroEncoder) float(dst []byte, n *avroNode) ([]byte, error) {
	if e.sc.kind() != kindNumber {
		return dst, e.mismatch(n)
	}
	num, ok := e.sc.number()
	if !ok {
		return dst, e.syntax("invalid number")
	}
	if n.kind == avroFloat {
		f, err := strconv.ParseFloat(bytesString(num), 32)
		if err != nil {
			return dst, e.failf("expected float, got number %s (out of range)", num)
		}
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(f))), nil
	}
	f, err := parseFloat64(num)
	if err != nil {
		return dst, e.failf("expected double, got number %s (out of range)", num)
	}
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
}

// string encodes a string (a uuid is checked).
func (e *avroEncoder) string(dst []byte, n *avroNode) ([]byte, error) {
	if e.sc.kind() != kindString {
		return dst, e.mismatch(n)
	}
	raw, escaped, high, ok := e.sc.strInfo()
	if !ok {
		return dst, e.syntax("invalid string")
	}
	val := raw
	if escaped {
		if e.text, ok = decodeString(e.text[:0], raw, true); !ok {
			return dst, e.syntax("invalid string escape or UTF-8")
		}
		val = e.text
	} else if high && !utf8.Valid(raw) {
		return dst, e.failf("string %s is not valid UTF-8", quoteShort(raw))
	}
	if n.logical == "uuid" && !isUUID(val) {
		return dst, e.failf("expected a uuid, got %s", quoteShort(val))
	}
	dst = appendLong(dst, int64(len(val)))
	return append(dst, val...), nil
}

// bytes encodes bytes or a fixed: a string of code points 0-255, as Avro
// JSON writes them; a decimal may also be a number or a string of one.
func (e *avroEncoder) bytes(dst []byte, n *avroNode) ([]byte, error) {
	k := e.sc.kind()
	if n.logical == "decimal" && (k == kindNumber || k == kindString) {
		if out, ok, err := e.decimal(dst, n); ok || err != nil {
			return out, err
		}
	}
	if k != kindString {
		return dst, e.mismatch(n)
	}
	raw, escaped, ok := e.sc.str()
	if !ok {
		return dst, e.syntax("invalid string")
	}
	if e.text, ok = decodeString(e.text[:0], raw, escaped); !ok {
		return dst, e.syntax("invalid string escape or UTF-8")
	}
	start := len(dst)
	if n.kind == avroBytes {
		dst = appendLong(dst, int64(len(e.text))) // at least the bytes' count; fixed below
	}
	body := len(dst)
	for _, r := range string(e.text) {
		if r > 0xff {
			return dst[:start], e.failf("%s: code point U+%04X is not a byte (Avro JSON writes bytes as code points 0-255)", n.name, r)
		}
		dst = append(dst, byte(r))
	}
	count := len(dst) - body
	if n.kind == avroFixed {
		if count != n.size {
			return dst[:start], e.failf("expected fixed %s of %d bytes, got %d", n.name, n.size, count)
		}
		return dst, nil
	}
	if count != len(e.text) { // fewer bytes than UTF-8 bytes: rewrite the count
		tmp := append([]byte(nil), dst[body:]...)
		dst = appendLong(dst[:start], int64(count))
		dst = append(dst, tmp...)
	}
	return dst, nil
}

// enum encodes an enum symbol.
func (e *avroEncoder) enum(dst []byte, n *avroNode) ([]byte, error) {
	if e.sc.kind() != kindString {
		return dst, e.mismatch(n)
	}
	raw, _, ok := e.sc.str()
	if !ok {
		return dst, e.syntax("invalid string")
	}
	i, found := n.symbolIndex[string(raw)]
	if !found {
		return dst, e.failf("%s is not a symbol of enum %s (%s)", quoteShort(raw), n.name, strings.Join(n.symbols, ", "))
	}
	return appendLong(dst, int64(i)), nil
}

// array encodes an array as one block: its count, its items, then 0.
func (e *avroEncoder) array(dst []byte, n *avroNode, depth int) ([]byte, error) {
	if !e.sc.consume('[') {
		return dst, e.mismatch(n)
	}
	start, count := len(dst), 0
	if !e.sc.consume(']') {
		for {
			var err error
			if dst, err = e.value(dst, n.items, depth+1); err != nil {
				return dst[:start], addStep(err, pathElem{index: count})
			}
			count++
			if e.sc.consume(']') {
				break
			}
			if !e.sc.consume(',') {
				return dst[:start], e.syntax("expected , or ] in an array")
			}
		}
	}
	return closeBlock(dst, start, count), nil
}

// mapValue encodes a map as one block of key and value pairs, then 0.
func (e *avroEncoder) mapValue(dst []byte, n *avroNode, depth int) ([]byte, error) {
	if !e.sc.consume('{') {
		return dst, e.mismatch(n)
	}
	start, count := len(dst), 0
	if !e.sc.consume('}') {
		for {
			raw, escaped, ok := e.sc.str()
			if !ok || !e.sc.consume(':') {
				return dst[:start], e.syntax("expected a key and : in an object")
			}
			if e.text, ok = decodeString(e.text[:0], raw, escaped); !ok {
				return dst[:start], e.syntax("invalid string escape or UTF-8")
			}
			dst = appendLong(dst, int64(len(e.text)))
			dst = append(dst, e.text...)
			var err error
			if dst, err = e.value(dst, n.items, depth+1); err != nil {
				return dst[:start], addStep(err, pathElem{key: raw})
			}
			count++
			if e.sc.consume('}') {
				break
			}
			if !e.sc.consume(',') {
				return dst[:start], e.syntax("expected , or } in an object")
			}
		}
	}
	return closeBlock(dst, start, count), nil
}

// closeBlock puts the count before the items written from start on and
// ends the array or map with a 0 block (an empty one is just the 0).
func closeBlock(dst []byte, start, count int) []byte {
	if count == 0 {
		return append(dst, 0)
	}
	var hdr [binary.MaxVarintLen64]byte
	h := binary.AppendVarint(hdr[:0], int64(count))
	dst = append(dst, h...) // room for the count
	copy(dst[start+len(h):], dst[start:len(dst)-len(h)])
	copy(dst[start:], h)
	return append(dst, 0)
}

// appendLong appends v as Avro's zig-zag varint.
func appendLong(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

// mismatch is the error of a value of the wrong kind for n.
func (e *avroEncoder) mismatch(n *avroNode) error {
	return e.failf("expected %s, got %s", n.name, e.got())
}

// got describes the next value for an error: its kind and, for a scalar,
// its text.
func (e *avroEncoder) got() string {
	k := e.sc.kind()
	start := e.sc.pos
	if !e.sc.skip(0) {
		return "invalid JSON"
	}
	switch k {
	case kindString, kindNumber, kindBool:
		return k.String() + " " + string(cut(e.sc.data[start:e.sc.pos], 40))
	}
	return k.String()
}

// cut shortens b for an error.
func cut(b []byte, limit int) []byte {
	if len(b) > limit {
		return append(b[:limit:limit], "..."...)
	}
	return b
}

// failf is the error of the value being encoded; the steps to it are
// added on the way up (addStep).
func (e *avroEncoder) failf(format string, args ...any) error {
	return &FieldError{Msg: fmt.Sprintf(format, args...), Err: ErrMismatch}
}

// syntax is the error of JSON that does not parse.
func (e *avroEncoder) syntax(msg string) error {
	return &FieldError{Msg: fmt.Sprintf("invalid JSON at byte %d: %s", e.sc.pos+1, msg), Err: ErrSyntax}
}

// addStep adds the step to the value that failed with err, on the way up.
func addStep(err error, step pathElem) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		fe.steps = append(fe.steps, step)
	}
	return err
}

// finishPath writes the steps an error collected (innermost first) as its
// path.
func finishPath(err error) error {
	var fe *FieldError
	if errors.As(err, &fe) && len(fe.steps) > 0 {
		for i, j := 0, len(fe.steps)-1; i < j; i, j = i+1, j-1 {
			fe.steps[i], fe.steps[j] = fe.steps[j], fe.steps[i]
		}
		fe.Path, fe.steps = formatPath(fe.steps), nil
	}
	return err
}

// formatPath writes a path as .field, [index] and ["key"] steps.
func formatPath(path []pathElem) string {
	var b strings.Builder
	for _, p := range path {
		switch {
		case p.field != "":
			b.WriteString("." + p.field)
		case p.key != nil:
			b.WriteString("[" + strconv.Quote(string(p.key)) + "]")
		default:
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
		}
	}
	return b.String()
}
