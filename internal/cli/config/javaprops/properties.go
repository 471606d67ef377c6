package javaprops

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kproduce/kproduce/internal/escape"
)

// ErrBadProperties is wrapped by every error about a malformed Java
// properties file.
var ErrBadProperties = errors.New("malformed properties")

// Property is one key and value of a Java properties file, with the line on
// which its logical line starts.
type Property struct {
	Key, Value string
	Line       int
}

// ParseProperties parses the text of a Java .properties file the way
// java.util.Properties.load does: logical lines joined by a trailing odd
// number of backslashes (leading white space of the next line dropped),
// comment lines starting with # or !, the key ending at the first unescaped
// '=', ':' or white space, escapes \t \n \r \f \uXXXX and \X for any other X.
// The text is taken as UTF-8 rather than ISO-8859-1. Properties are returned
// in file order; a repeated key appears twice (the last one wins when
// applied).
func ParseProperties(text string) ([]Property, error) {
	var props []Property
	err := EachProperty(text, func(p Property) error {
		props = append(props, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return props, nil
}

// EachProperty parses text as ParseProperties does and calls fn with each
// property in file order, holding no more than one logical line: a file
// is read in time and memory linear in the longest line, whatever the
// number of lines. An error of fn stops the parse and is returned.
func EachProperty(text string, fn func(Property) error) error {
	var logical strings.Builder
	next := 0 // the number of the next natural line, from 0
	for len(text) > 0 {
		start := next
		var raw string
		raw, text = cutNaturalLine(text)
		next++
		line := strings.TrimLeft(raw, " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		logical.Reset()
		for continues(line) && len(text) > 0 {
			logical.WriteString(line[:len(line)-1])
			raw, text = cutNaturalLine(text)
			next++
			line = strings.TrimLeft(raw, " \t\f")
		}
		if continues(line) { // the file ends inside a continuation
			line = line[:len(line)-1]
		}
		logical.WriteString(line)
		p, err := parsePropertyLine(logical.String())
		if err != nil {
			return fmt.Errorf("line %d: %w", start+1, err)
		}
		p.Line = start + 1
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// cutNaturalLine cuts the first natural line off text, at \n, \r or
// \r\n, and returns it and the rest.
func cutNaturalLine(text string) (line, rest string) {
	i := strings.IndexAny(text, "\r\n")
	if i < 0 {
		return text, ""
	}
	end := i + 1
	if text[i] == '\r' && end < len(text) && text[end] == '\n' {
		end++
	}
	return text[:i], text[end:]
}

// continues reports whether a natural line ends with an odd number of
// backslashes, which joins it with the next.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// parsePropertyLine splits a logical line into its key and value and
// decodes their escapes.
func parsePropertyLine(line string) (Property, error) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++ // the escaped byte is part of the key
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			end = i
			break
		}
	}
	rest := strings.TrimLeft(line[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	key, err := unescapeProperty(line[:end])
	if err != nil {
		return Property{}, err
	}
	value, err := unescapeProperty(rest)
	if err != nil {
		return Property{}, err
	}
	return Property{Key: key, Value: value}, nil
}

// unescapeProperty decodes the escapes of a properties key or value.
func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i == len(s) {
			break // a lone trailing backslash is dropped, as Java does
		}
		switch c := s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, n, err := unicodeEscapes(s, i+1)
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// unicodeEscapes decodes the four hex digits of a \uXXXX escape at s[i:],
// joining a UTF-16 surrogate pair written as two escapes. It returns the
// rune and how many bytes after i-1 (the 'u') it used.
func unicodeEscapes(s string, i int) (rune, int, error) {
	r, err := unicodeEscape(s, i)
	if err != nil {
		return 0, 0, err
	}
	if utf16.IsSurrogate(r) && strings.HasPrefix(s[i+4:], "\\u") {
		if r2, err := unicodeEscape(s, i+6); err == nil {
			if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
				return pair, 10, nil
			}
		}
	}
	if !utf8.ValidRune(r) {
		r = utf8.RuneError // a lone surrogate half
	}
	return r, 4, nil
}

// unicodeEscape decodes the four hex digits of a \uXXXX escape at s[i:].
func unicodeEscape(s string, i int) (rune, error) {
	if i+4 > len(s) {
		return 0, fmt.Errorf("%w: malformed \\uxxxx encoding", ErrBadProperties)
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		v, ok := escape.HexValue(c)
		if !ok {
			return 0, fmt.Errorf("%w: malformed \\uxxxx encoding %q", ErrBadProperties, s[i-2:i+4])
		}
		r = r<<4 | rune(v)
	}
	return r, nil
}
