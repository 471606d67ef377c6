package schema

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a record's JSON: deeper input fails
// instead of exhausting the stack.
const maxDepth = 256

// jsonKind is the kind of a JSON value, known from its first byte.
type jsonKind byte

const (
	kindInvalid jsonKind = iota
	kindNull
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// String names a JSON kind as an error says it.
func (k jsonKind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindArray:
		return "array"
	case kindObject:
		return "object"
	}
	return "invalid JSON"
}

// kindOf is the kind of the value starting with c.
func kindOf(c byte) jsonKind {
	switch {
	case c == 'n':
		return kindNull
	case c == 't' || c == 'f':
		return kindBool
	case c == '-' || (c >= '0' && c <= '9'):
		return kindNumber
	case c == '"':
		return kindString
	case c == '[':
		return kindArray
	case c == '{':
		return kindObject
	}
	return kindInvalid
}

// scanner reads one JSON text in place: no value is copied unless a
// string holds escapes.
type scanner struct {
	data []byte
	pos  int
}

// ws skips white space and returns the next byte, 0 at the end.
func (s *scanner) ws() byte {
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c > ' ' {
			return c
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
		s.pos++
	}
	return 0
}

// kind returns the kind of the next value, after white space.
func (s *scanner) kind() jsonKind { return kindOf(s.ws()) }

// consume skips white space and the byte c, reporting whether it was there.
func (s *scanner) consume(c byte) bool {
	if s.ws() == c {
		s.pos++
		return true
	}
	return false
}

// literal reads null, true or false.
func (s *scanner) literal() (string, bool) {
	for _, w := range [...]string{"null", "true", "false"} {
		if len(s.data)-s.pos >= len(w) && string(s.data[s.pos:s.pos+len(w)]) == w {
			s.pos += len(w)
			return w, true
		}
	}
	return "", false
}

// str reads a string: its raw bytes between the quotes, and whether they
// hold escapes (then decode gives the value).
func (s *scanner) str() (raw []byte, escaped bool, ok bool) {
	raw, escaped, _, ok = s.strInfo()
	return raw, escaped, ok
}

// strInfo is str, also saying whether the raw bytes hold any byte of
// 0x80 or more (then they need a UTF-8 check).
func (s *scanner) strInfo() (raw []byte, escaped, high, ok bool) {
	if s.ws() != '"' {
		return nil, false, false, false
	}
	start := s.pos + 1
	d := s.data
	for i := start; i < len(d); i++ {
		c := d[i]
		if !stringSpecial[c] {
			continue
		}
		switch {
		case c >= 0x80:
			high = true
		case c == '"':
			s.pos = i + 1
			return d[start:i], escaped, high, true
		case c == '\\':
			escaped = true
			i++
		default: // a control character
			return nil, false, false, false
		}
	}
	return nil, false, false, false
}

// stringSpecial marks the bytes a string scan stops at: the quote, the
// backslash, the control characters JSON does not allow unescaped, and
// the bytes of 0x80 and more (UTF-8 to check). It is never written.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// integer reads a number, and its value when it is a plain integer of at
// most 18 digits (plain false: read the text with parseInt).
func (s *scanner) integer() (v int64, text []byte, plain, ok bool) {
	s.ws()
	start, i, d := s.pos, s.pos, s.data
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	first := i
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		v = v*10 + int64(d[i]-'0')
		i++
	}
	n := i - first
	if n == 0 || (n > 1 && d[first] == '0') {
		return 0, nil, false, false
	}
	if n <= 18 && (i == len(d) || (d[i] != '.' && d[i] != 'e' && d[i] != 'E')) {
		s.pos = i
		if neg {
			v = -v
		}
		return v, d[start:i], true, true
	}
	text, ok = s.number()
	return 0, text, false, ok
}

// number reads a number's text, checked against JSON's grammar.
func (s *scanner) number() ([]byte, bool) {
	s.ws()
	start, i, d := s.pos, s.pos, s.data
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	first := i
	if n := digits(); n == 0 || (n > 1 && d[first] == '0') {
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	s.pos = i
	return d[start:i], true
}

// skip reads one value of any kind without looking into it.
func (s *scanner) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch s.kind() {
	case kindNull, kindBool:
		_, ok := s.literal()
		return ok
	case kindNumber:
		_, ok := s.number()
		return ok
	case kindString:
		_, _, ok := s.str()
		return ok
	case kindArray:
		s.pos++
		if s.consume(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.consume(']') {
				return true
			}
			if !s.consume(',') {
				return false
			}
		}
	case kindObject:
		s.pos++
		if s.consume('}') {
			return true
		}
		for {
			if _, _, ok := s.str(); !ok || !s.consume(':') || !s.skip(depth+1) {
				return false
			}
			if s.consume('}') {
				return true
			}
			if !s.consume(',') {
				return false
			}
		}
	}
	return false
}

// decodeString appends the value of a string's raw bytes to dst: escapes
// decoded, invalid UTF-8 refused.
func decodeString(dst, raw []byte, escaped bool) ([]byte, bool) {
	if !escaped {
		if !utf8.Valid(raw) {
			return dst, false
		}
		return append(dst, raw...), true
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(raw) {
			return dst, false
		}
		switch raw[i] {
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n, ok := unicodeEscape(raw[i+1:])
			if !ok {
				return dst, false
			}
			i += n
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, false
		}
	}
	if !utf8.Valid(dst) {
		return dst, false
	}
	return dst, true
}

// unicodeEscape reads the XXXX of a \uXXXX escape (and the low half of a
// surrogate pair after it), returning the rune and the bytes read.
func unicodeEscape(b []byte) (rune, int, bool) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0, false
	}
	if !utf16.IsSurrogate(r) {
		return r, 4, true
	}
	if len(b) >= 10 && b[4] == '\\' && b[5] == 'u' {
		if lo, ok := hex4(b[6:]); ok {
			if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
				return d, 10, true
			}
		}
	}
	return utf8.RuneError, 4, true
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// quoteShort quotes a value for an error, cut to a readable length.
func quoteShort(b []byte) string {
	const limit = 40
	if len(b) > limit {
		return strconv.Quote(string(b[:limit])) + "..."
	}
	return strconv.Quote(string(b))
}
