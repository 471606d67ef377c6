package javaprops

import (
	"errors"
	"fmt"
	"strings"
)

// JAASConfig is a parsed sasl.jaas.config value: one login module and its
// options.
type JAASConfig struct {
	Module  string
	Flag    string
	Options map[string]string
	// spans are where each option's value is in the text parsed, quotes
	// included, in the order of the text (for RedactJAAS).
	spans []jaasSpan
}

// jaasSpan is one option's value in the text of a JAAS configuration:
// s[Start:End] (quotes included).
type jaasSpan struct {
	Name       string
	Start, End int
}

// ErrBadJAAS is wrapped by every error about a malformed sasl.jaas.config.
// The errors never quote option values: they may be passwords.
var ErrBadJAAS = errors.New("malformed sasl.jaas.config")

// ParseJAAS parses a Kafka client JAAS configuration:
//
//	org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";
//
// Values are double-quoted (backslash escapes as in Java) or bare words.
func ParseJAAS(s string) (*JAASConfig, error) {
	p := &jaasParser{s: s}
	cfg := &JAASConfig{Options: map[string]string{}}
	cfg.Module = p.word()
	if cfg.Module == "" {
		return nil, fmt.Errorf("%w: no login module", ErrBadJAAS)
	}
	cfg.Flag = strings.ToLower(p.word())
	switch cfg.Flag {
	case "required", "requisite", "sufficient", "optional":
	default:
		return nil, fmt.Errorf("%w: after the login module, want a control flag (required, requisite, sufficient or optional)", ErrBadJAAS)
	}
	for {
		p.skipSpace()
		if p.done() {
			return nil, fmt.Errorf("%w: missing ';' at the end", ErrBadJAAS)
		}
		if p.s[p.i] == ';' {
			p.i++
			break
		}
		name, value, start, err := p.option()
		if err != nil {
			return nil, err
		}
		cfg.Options[name] = value
		cfg.spans = append(cfg.spans, jaasSpan{Name: name, Start: start, End: p.i})
	}
	p.skipSpace()
	if !p.done() {
		return nil, fmt.Errorf("%w: one login module expected; text follows the ';'", ErrBadJAAS)
	}
	return cfg, nil
}

// jaasParser scans a JAAS configuration.
type jaasParser struct {
	s string
	i int
}

func (p *jaasParser) done() bool { return p.i >= len(p.s) }

func (p *jaasParser) skipSpace() {
	for !p.done() && isJAASSpace(p.s[p.i]) {
		p.i++
	}
}

// isJAASSpace reports whether c is white space between JAAS tokens. The
// scanner works on bytes: a byte of a multi-byte or invalid UTF-8
// sequence is never white space or punctuation, so offsets stay those of
// the text.
func isJAASSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isJAASWordByte reports whether c can be part of a bare word.
func isJAASWordByte(c byte) bool { return !isJAASSpace(c) && c != '=' && c != ';' && c != '"' }

// word returns the next run of characters up to white space, '=', ';' or
// '"'.
func (p *jaasParser) word() string {
	p.skipSpace()
	start := p.i
	for !p.done() && isJAASWordByte(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// option reads name=value, and returns where the value starts.
func (p *jaasParser) option() (name, value string, start int, err error) {
	name = p.word()
	p.skipSpace()
	if name == "" || p.done() || p.s[p.i] != '=' {
		return "", "", 0, fmt.Errorf("%w: want name=value options after the control flag (at offset %d)", ErrBadJAAS, p.i)
	}
	p.i++
	p.skipSpace()
	start = p.i
	if p.done() {
		return "", "", 0, fmt.Errorf("%w: option %s has no value", ErrBadJAAS, name)
	}
	if p.s[p.i] != '"' {
		v := p.word()
		if v == "" {
			return "", "", 0, fmt.Errorf("%w: option %s has no value", ErrBadJAAS, name)
		}
		return name, v, start, nil
	}
	v, err := p.quoted()
	if err != nil {
		return "", "", 0, fmt.Errorf("%w: option %s: %w", ErrBadJAAS, name, err)
	}
	return name, v, start, nil
}

// quoted reads a double-quoted string with Java's escapes.
func (p *jaasParser) quoted() (string, error) {
	var b strings.Builder
	for p.i++; !p.done(); p.i++ {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return b.String(), nil
		case '\\':
			p.i++
			if p.done() {
				return "", errors.New("unterminated quoted value")
			}
			b.WriteByte(jaasEscape(p.s[p.i]))
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("unterminated quoted value")
}

// jaasEscape is the character of the escape \c.
func jaasEscape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	}
	return c
}
