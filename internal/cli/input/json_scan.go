package input

import (
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kproduce/kproduce/internal/escape"
)

// ErrMalformedJSON is wrapped by the error of a JSON record that does not
// parse.
var ErrMalformedJSON = errors.New("malformed JSON")

// maxJSONDepth bounds the nesting of arrays and objects in a JSON record.
const maxJSONDepth = 512

// span is a byte range of jsonScanner.scratch; null marks JSON null.
type span struct {
	start, end int
	null       bool
}

// jsonScanner parses one JSON text held in data. Strings are decoded into
// scratch byte for byte: bytes that are not valid UTF-8 are kept as they
// are (kcat writes binary keys and values that way), and escapes are
// decoded. Non-string values are copied into scratch as compact JSON text.
type jsonScanner struct {
	data    []byte
	pos     int
	scratch []byte
	depth   int
}

// reset starts scanning data; scratch is reused.
func (p *jsonScanner) reset(data []byte) {
	p.data, p.pos, p.scratch, p.depth = data, 0, p.scratch[:0], 0
}

// errorf returns a malformed-JSON error at the current position (1-based).
func (p *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrMalformedJSON, p.pos+1, fmt.Sprintf(format, args...))
}

// ws skips white space.
func (p *jsonScanner) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end (a NUL byte
// also reads as 0: check p.pos against len(p.data) to tell them apart).
func (p *jsonScanner) peek() byte {
	p.ws()
	if p.pos >= len(p.data) {
		return 0
	}
	return p.data[p.pos]
}

// expect consumes the byte c after white space.
func (p *jsonScanner) expect(c byte, what string) error {
	if p.peek() != c {
		return p.errorf("expected %s", what)
	}
	p.pos++
	return nil
}

// bytes returns the bytes of a span (nil for null).
func (p *jsonScanner) bytes(s span) []byte {
	if s.null {
		return nil
	}
	return p.scratch[s.start:s.end:s.end]
}

// str decodes a JSON string at the current position into scratch.
func (p *jsonScanner) str() (span, error) {
	if p.peek() != '"' {
		return span{}, p.errorf("expected a string")
	}
	p.pos++
	start := len(p.scratch)
	for {
		run := p.pos
		for p.pos < len(p.data) {
			c := p.data[p.pos]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			p.pos++
		}
		p.scratch = append(p.scratch, p.data[run:p.pos]...)
		if p.pos >= len(p.data) {
			return span{}, p.errorf("unterminated string")
		}
		switch c := p.data[p.pos]; {
		case c == '"':
			p.pos++
			return span{start: start, end: len(p.scratch)}, nil
		case c < 0x20:
			return span{}, p.errorf("control character 0x%02x in a string (escape it)", c)
		}
		if err := p.escape(); err != nil {
			return span{}, err
		}
	}
}

// escape decodes the escape at the backslash at p.pos into scratch.
func (p *jsonScanner) escape() error {
	if p.pos+1 >= len(p.data) {
		return p.errorf("unterminated escape")
	}
	c := p.data[p.pos+1]
	p.pos += 2
	switch c {
	case '"', '\\', '/':
		p.scratch = append(p.scratch, c)
	case 'b':
		p.scratch = append(p.scratch, '\b')
	case 'f':
		p.scratch = append(p.scratch, '\f')
	case 'n':
		p.scratch = append(p.scratch, '\n')
	case 'r':
		p.scratch = append(p.scratch, '\r')
	case 't':
		p.scratch = append(p.scratch, '\t')
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return err
		}
		if utf16.IsSurrogate(r) {
			r = p.lowSurrogate(r)
		}
		p.scratch = utf8.AppendRune(p.scratch, r)
	default:
		p.pos -= 2
		return p.errorf("invalid escape \\%c", c)
	}
	return nil
}

// hex4 reads the four hex digits of a \u escape.
func (p *jsonScanner) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errorf("\\u needs four hex digits")
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		v, ok := escape.HexValue(c)
		if !ok {
			return 0, p.errorf("\\u needs four hex digits")
		}
		r = r<<4 | rune(v)
	}
	p.pos += 4
	return r, nil
}

// lowSurrogate joins a high surrogate with a following \u low surrogate; a
// lone surrogate becomes U+FFFD, as encoding/json does.
func (p *jsonScanner) lowSurrogate(hi rune) rune {
	if p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
		save := p.pos
		p.pos += 2
		if lo, err := p.hex4(); err == nil {
			if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
				return r
			}
		}
		p.pos = save
	}
	return utf8.RuneError
}

// value reads any JSON value: a string is decoded, null is a null span and
// anything else is copied as compact JSON text.
func (p *jsonScanner) value() (span, error) {
	switch p.peek() {
	case '"':
		return p.str()
	case 'n':
		if err := p.literal("null"); err != nil {
			return span{}, err
		}
		return span{null: true}, nil
	}
	start := len(p.scratch)
	if err := p.compact(true); err != nil {
		return span{}, err
	}
	return span{start: start, end: len(p.scratch)}, nil
}

// skip reads and validates any JSON value without keeping it.
func (p *jsonScanner) skip() error {
	n := len(p.scratch)
	err := p.compact(false)
	p.scratch = p.scratch[:n]
	return err
}

// literal consumes the literal word (true, false, null).
func (p *jsonScanner) literal(word string) error {
	p.ws()
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errorf("invalid value")
	}
	p.pos += len(word)
	return nil
}
