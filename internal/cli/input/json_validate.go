package input

import "math"

// compact validates one JSON value and, when keep is set, appends it to
// scratch without white space.
func (p *jsonScanner) compact(keep bool) error {
	c := p.peek()
	start := p.pos
	var err error
	switch {
	case c == '{' || c == '[':
		return p.container(keep)
	case c == '"':
		err = p.rawString()
	case c == 't':
		err = p.literal("true")
	case c == 'f':
		err = p.literal("false")
	case c == 'n':
		err = p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		err = p.number()
	default:
		return p.errorf("expected a value")
	}
	if err == nil && keep {
		p.scratch = append(p.scratch, p.data[start:p.pos]...)
	}
	return err
}

// container validates an object or an array, appending it compacted to
// scratch when keep is set.
func (p *jsonScanner) container(keep bool) error {
	open := p.data[p.pos]
	end := byte(']')
	if open == '{' {
		end = '}'
	}
	if p.depth++; p.depth > maxJSONDepth {
		return p.errorf("nested more than %d deep", maxJSONDepth)
	}
	defer func() { p.depth-- }()
	p.pos++
	p.keep(keep, open)
	if p.peek() == end {
		p.pos++
		p.keep(keep, end)
		return nil
	}
	for {
		if open == '{' {
			if err := p.compactKey(keep); err != nil {
				return err
			}
		}
		if err := p.compact(keep); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
			p.keep(keep, ',')
		case end:
			p.pos++
			p.keep(keep, end)
			return nil
		default:
			return p.errorf("expected ',' or '%c'", end)
		}
	}
}

// compactKey validates an object key and its colon.
func (p *jsonScanner) compactKey(keep bool) error {
	if p.peek() != '"' {
		return p.errorf("expected a string key")
	}
	start := p.pos
	if err := p.rawString(); err != nil {
		return err
	}
	if keep {
		p.scratch = append(p.scratch, p.data[start:p.pos]...)
	}
	if err := p.expect(':', "':' after an object key"); err != nil {
		return err
	}
	p.keep(keep, ':')
	return nil
}

// keep appends c to scratch when keep is set.
func (p *jsonScanner) keep(keep bool, c byte) {
	if keep {
		p.scratch = append(p.scratch, c)
	}
}

// rawString validates a string at p.pos without decoding it.
func (p *jsonScanner) rawString() error {
	p.pos++ // the opening quote
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return nil
		case c < 0x20:
			return p.errorf("control character 0x%02x in a string (escape it)", c)
		case c == '\\':
			if err := p.skipEscape(); err != nil {
				return err
			}
		default:
			p.pos++
		}
	}
	return p.errorf("unterminated string")
}

// skipEscape validates the escape at the backslash at p.pos.
func (p *jsonScanner) skipEscape() error {
	if p.pos+1 >= len(p.data) {
		return p.errorf("unterminated escape")
	}
	switch c := p.data[p.pos+1]; c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		p.pos += 2
	case 'u':
		p.pos += 2
		if _, err := p.hex4(); err != nil {
			return err
		}
	default:
		return p.errorf("invalid escape \\%c", c)
	}
	return nil
}

// number validates a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonScanner) number() error {
	if p.at('-') {
		p.pos++
	}
	switch {
	case p.at('0'):
		p.pos++
	case p.digits() == 0:
		return p.errorf("invalid number")
	}
	if p.at('.') {
		p.pos++
		if p.digits() == 0 {
			return p.errorf("invalid number: digits expected after '.'")
		}
	}
	if p.at('e') || p.at('E') {
		p.pos++
		if p.at('+') || p.at('-') {
			p.pos++
		}
		if p.digits() == 0 {
			return p.errorf("invalid number: digits expected in the exponent")
		}
	}
	return nil
}

// at reports whether the byte at p.pos is c.
func (p *jsonScanner) at(c byte) bool { return p.pos < len(p.data) && p.data[p.pos] == c }

// digits consumes decimal digits and returns how many.
func (p *jsonScanner) digits() int {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

// integer reads an integer (no fraction, no exponent) in [lo, hi]; null
// returns ok false.
func (p *jsonScanner) integer(what string, lo, hi int64) (n int64, ok bool, err error) {
	if p.peek() == 'n' {
		return 0, false, p.literal("null")
	}
	start := p.pos
	if err := p.number(); err != nil {
		return 0, false, err
	}
	text := p.data[start:p.pos]
	digits := text
	if digits[0] == '-' {
		digits = digits[1:]
	}
	inRange := true
	for _, c := range digits {
		if c < '0' || c > '9' {
			p.pos = start
			return 0, false, p.errorf("%s must be an integer", what)
		}
		if d := int64(c - '0'); n <= (math.MaxInt64-d)/10 {
			n = n*10 + d
		} else {
			inRange = false
		}
	}
	if text[0] == '-' {
		n = -n
	}
	if !inRange || n < lo || n > hi {
		p.pos = start
		return 0, false, p.errorf("%s %s is out of range [%d, %d]", what, text, lo, hi)
	}
	return n, true, nil
}
