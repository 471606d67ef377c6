package schema

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// single encodes one value of f with its tag. skipZero leaves out a zero
// scalar (proto3's implicit presence writes none).
func (p *protoFast) single(dst []byte, f *fastField, skipZero bool, depth int) ([]byte, error) {
	switch f.kind {
	case protoreflect.MessageKind:
		dst = protowire.AppendTag(dst, f.num, protowire.BytesType)
		start := len(dst)
		out, err := p.message(dst, f.message, depth+1)
		if err != nil {
			return dst[:start], err
		}
		return prefixLength(out, start), nil
	case protoreflect.StringKind, protoreflect.BytesKind:
		b, err := p.stringOrBytes(f)
		if err != nil {
			return dst, err
		}
		if skipZero && len(b) == 0 {
			return dst, nil
		}
		dst = protowire.AppendTag(dst, f.num, protowire.BytesType)
		return protowire.AppendBytes(dst, b), nil
	}
	v, err := p.scalar(f)
	if err != nil {
		return dst, err
	}
	if skipZero && v == 0 {
		return dst, nil
	}
	dst = protowire.AppendTag(dst, f.num, wireType(f.kind))
	return appendScalar(dst, f.kind, v), nil
}

// listField encodes a repeated field: packed scalars in one length-
// prefixed run, other values each with its tag.
func (p *protoFast) listField(dst []byte, f *fastField, depth int) ([]byte, error) {
	if !p.sc.consume('[') {
		return dst, p.failf("expected an array, got %s", p.got())
	}
	if p.sc.consume(']') {
		return dst, nil
	}
	packed := f.packed && wireType(f.kind) != protowire.BytesType
	start := len(dst)
	if packed {
		dst = protowire.AppendTag(dst, f.num, protowire.BytesType)
	}
	body := len(dst)
	for i := 0; ; i++ {
		var err error
		if packed {
			var v uint64
			if v, err = p.scalar(f); err == nil {
				dst = appendScalar(dst, f.kind, v)
			}
		} else {
			dst, err = p.single(dst, f, false, depth)
		}
		if err != nil {
			return dst[:start], addStep(err, pathElem{index: i})
		}
		if p.sc.consume(']') {
			break
		}
		if !p.sc.consume(',') {
			return dst[:start], p.syntax("expected , or ] in an array")
		}
	}
	if packed {
		return prefixLength(dst, body), nil
	}
	return dst, nil
}

// mapField encodes a map: one entry message per member, the key read from
// the member's name.
func (p *protoFast) mapField(dst []byte, f *fastField, depth int) ([]byte, error) {
	if !p.sc.consume('{') {
		return dst, p.failf("expected an object (a map), got %s", p.got())
	}
	if p.sc.consume('}') {
		return dst, nil
	}
	for {
		raw, escaped, ok := p.sc.str()
		if !ok || !p.sc.consume(':') {
			return dst, p.syntax("expected a key and : in an object")
		}
		start := len(dst)
		dst = protowire.AppendTag(dst, f.num, protowire.BytesType)
		body := len(dst)
		var err error
		if dst, err = p.mapKey(dst, f.mapKey, raw, escaped); err == nil {
			dst, err = p.single(dst, f.mapValue, false, depth)
		}
		if err != nil {
			return dst[:start], addStep(err, pathElem{key: raw})
		}
		dst = prefixLength(dst, body)
		if p.sc.consume('}') {
			return dst, nil
		}
		if !p.sc.consume(',') {
			return dst[:start], p.syntax("expected , or } in an object")
		}
	}
}

// mapKey encodes a map entry's key, given as the member's name.
func (p *protoFast) mapKey(dst []byte, k *fastField, raw []byte, escaped bool) ([]byte, error) {
	text, ok := decodeString(p.text[:0], raw, escaped)
	if !ok {
		return dst, p.syntax("invalid string escape or UTF-8")
	}
	p.text = text
	if k.kind == protoreflect.StringKind {
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		return protowire.AppendBytes(dst, text), nil
	}
	var v uint64
	if k.kind == protoreflect.BoolKind {
		switch string(text) {
		case "true":
			v = 1
		case "false":
		default:
			return dst, p.failf("map key %s is not a bool", quoteShort(text))
		}
	} else {
		var err error
		if v, err = integerBits(k.kind, text); err != nil {
			return dst, p.failf("map key %s: %v", quoteShort(text), err)
		}
	}
	dst = protowire.AppendTag(dst, 1, wireType(k.kind))
	return appendScalar(dst, k.kind, v), nil
}

// stringOrBytes reads a string (UTF-8) or bytes (base64, standard or URL
// alphabet, padded or not).
func (p *protoFast) stringOrBytes(f *fastField) ([]byte, error) {
	if p.sc.kind() != kindString {
		return nil, p.failf("expected a string for %s field, got %s", f.kind, p.got())
	}
	raw, escaped, high, ok := p.sc.strInfo()
	if !ok {
		return nil, p.syntax("invalid string")
	}
	if f.kind == protoreflect.StringKind {
		if !escaped {
			if high && !utf8.Valid(raw) {
				return nil, p.failf("string %s is not valid UTF-8", quoteShort(raw))
			}
			return raw, nil
		}
		text, ok := decodeString(p.text[:0], raw, true)
		if !ok {
			return nil, p.syntax("invalid string escape or UTF-8")
		}
		p.text = text
		return text, nil
	}
	text, ok := decodeString(p.text[:0], raw, escaped)
	if !ok {
		return nil, p.syntax("invalid string escape")
	}
	p.text = text
	if need := base64.StdEncoding.DecodedLen(len(text)) + 3; cap(p.b64) < need {
		p.b64 = make([]byte, need)
	}
	buf := p.b64[:cap(p.b64)]
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if n, err := enc.Decode(buf, text); err == nil {
			return buf[:n], nil
		}
	}
	return nil, p.failf("bytes field: %s is not base64", quoteShort(text))
}

// scalar reads a number, bool or enum as the bits its wire form writes.
func (p *protoFast) scalar(f *fastField) (uint64, error) {
	k := p.sc.kind()
	switch f.kind {
	case protoreflect.BoolKind:
		if k != kindBool {
			return 0, p.failf("expected a boolean, got %s", p.got())
		}
		w, _ := p.sc.literal()
		if w == "true" {
			return 1, nil
		}
		return 0, nil
	case protoreflect.EnumKind:
		return p.enumValue(f, k)
	}
	var text []byte
	switch k {
	case kindNumber:
		v, num, plain, ok := p.sc.integer()
		if !ok {
			return 0, p.syntax("invalid number")
		}
		if plain && f.kind != protoreflect.FloatKind && f.kind != protoreflect.DoubleKind {
			if bits, err := plainIntegerBits(f.kind, v); err == nil {
				return bits, nil
			}
		}
		text = num
	case kindString:
		raw, _, ok := p.sc.str()
		if !ok {
			return 0, p.syntax("invalid string")
		}
		text = raw
	default:
		return 0, p.failf("expected a number for %s field, got %s", f.kind, p.got())
	}
	var v uint64
	var err error
	switch f.kind {
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		v, err = floatBits(f.kind, text, k == kindString)
	default:
		v, err = integerBits(f.kind, text)
	}
	if err != nil {
		return 0, p.failf("%s field: %s: %v", f.kind, quoteShort(text), err)
	}
	return v, nil
}

// enumValue reads an enum by name or number.
func (p *protoFast) enumValue(f *fastField, k jsonKind) (uint64, error) {
	switch k {
	case kindString:
		raw, _, ok := p.sc.str()
		if !ok {
			return 0, p.syntax("invalid string")
		}
		v, found := f.enumValues[string(raw)]
		if !found {
			return 0, p.failf("invalid value for enum %s: %s", f.enum.FullName(), quoteShort(raw))
		}
		return uint64(int64(v)), nil
	case kindNumber:
		num, isNum := p.sc.number()
		if !isNum {
			return 0, p.syntax("invalid number")
		}
		n, ok := parseInt(num)
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			return 0, p.failf("invalid value for enum %s: %s", f.enum.FullName(), num)
		}
		return uint64(n), nil
	}
	return 0, p.failf("expected an enum name or number, got %s", p.got())
}

// plainIntegerBits is integerBits for an integer already read; an error
// sends the caller to integerBits (and its message).
func plainIntegerBits(k protoreflect.Kind, n int64) (uint64, error) {
	switch k {
	case protoreflect.Int64Kind, protoreflect.Sfixed64Kind:
		return uint64(n), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if n >= 0 {
			return uint64(n), nil
		}
	case protoreflect.Sint64Kind:
		return protowire.EncodeZigZag(n), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if n >= 0 && n <= math.MaxUint32 {
			return uint64(n), nil
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if n < math.MinInt32 || n > math.MaxInt32 {
			break
		}
		switch k {
		case protoreflect.Sint32Kind:
			return uint64(uint32(int32(n)<<1 ^ int32(n)>>31)), nil
		case protoreflect.Sfixed32Kind:
			return uint64(uint32(int32(n))), nil
		}
		return uint64(n), nil
	}
	return integerBits(k, strconv.AppendInt(nil, n, 10)) // out of range: its error
}

// integerBits reads an integer of kind k (a JSON number, or its text in a
// string): the bits its wire form writes.
func integerBits(k protoreflect.Kind, text []byte) (uint64, error) {
	switch k {
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		bits := 64
		if k == protoreflect.Uint32Kind || k == protoreflect.Fixed32Kind {
			bits = 32
		}
		u, err := strconv.ParseUint(bytesString(text), 10, bits)
		if err != nil {
			n, ok := parseInt(text)
			if !ok || n < 0 || (bits == 32 && n > math.MaxUint32) {
				return 0, fmt.Errorf("not an unsigned %d-bit integer", bits)
			}
			u = uint64(n)
		}
		return u, nil
	}
	n, ok := parseInt(text)
	if !ok {
		return 0, fmt.Errorf("not an integer in range")
	}
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if n < math.MinInt32 || n > math.MaxInt32 {
			return 0, fmt.Errorf("out of the 32-bit range")
		}
	}
	switch k {
	case protoreflect.Sint32Kind:
		return uint64(uint32(int32(n)<<1 ^ int32(n)>>31)), nil
	case protoreflect.Sint64Kind:
		return protowire.EncodeZigZag(n), nil
	case protoreflect.Sfixed32Kind:
		return uint64(uint32(int32(n))), nil
	}
	return uint64(n), nil
}

// floatBits reads a float or double (a string may also be NaN, Infinity
// or -Infinity) as its IEEE bits.
func floatBits(k protoreflect.Kind, text []byte, quoted bool) (uint64, error) {
	var f float64
	switch s := bytesString(text); {
	case quoted && s == "NaN":
		f = math.NaN()
	case quoted && s == "Infinity":
		f = math.Inf(1)
	case quoted && s == "-Infinity":
		f = math.Inf(-1)
	default:
		var err error
		if k == protoreflect.DoubleKind {
			f, err = parseFloat64(text)
		} else {
			f, err = strconv.ParseFloat(s, 32)
		}
		if err != nil {
			return 0, fmt.Errorf("not a number in range")
		}
	}
	if k == protoreflect.FloatKind {
		return uint64(math.Float32bits(float32(f))), nil
	}
	return math.Float64bits(f), nil
}

// wireType is the wire type of a scalar kind.
func wireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	}
	return protowire.VarintType
}

// appendScalar appends a scalar's bits in its wire form.
func appendScalar(dst []byte, k protoreflect.Kind, v uint64) []byte {
	switch wireType(k) {
	case protowire.Fixed32Type:
		return protowire.AppendFixed32(dst, uint32(v))
	case protowire.Fixed64Type:
		return protowire.AppendFixed64(dst, v)
	}
	if k == protoreflect.Int32Kind || k == protoreflect.EnumKind {
		v = uint64(int64(int32(v))) // negative: ten bytes, sign-extended
	}
	return protowire.AppendVarint(dst, v)
}

// prefixLength puts the length of dst[start:] before it, as a varint.
func prefixLength(dst []byte, start int) []byte {
	n := len(dst) - start
	var hdr [binary.MaxVarintLen64]byte
	h := protowire.AppendVarint(hdr[:0], uint64(n))
	dst = append(dst, h...)
	copy(dst[start+len(h):], dst[start:start+n])
	copy(dst[start:], h)
	return dst
}

// failf is the error of the value being encoded.
func (p *protoFast) failf(format string, args ...any) error {
	return &FieldError{Msg: fmt.Sprintf(format, args...), Err: ErrMismatch}
}

// syntax is the error of JSON that does not parse.
func (p *protoFast) syntax(msg string) error {
	return &FieldError{Msg: fmt.Sprintf("invalid JSON at byte %d: %s", p.sc.pos+1, msg), Err: ErrSyntax}
}

// got describes the next value for an error.
func (p *protoFast) got() string {
	e := avroEncoder{sc: p.sc}
	return e.got()
}
