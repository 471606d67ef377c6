package escape

import (
	"errors"
	"fmt"
)

// ErrBadEscape is wrapped by every error about a malformed backslash escape.
var ErrBadEscape = errors.New("bad escape")

// Unescape decodes the backslash escapes of a delimiter given on the command
// line: \n \r \t \0 \\ and \xNN (two hex digits). Any other byte stands for
// itself. Any other escape, or a trailing lone backslash, is an error, so a
// typo never silently becomes a different delimiter.
func Unescape(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		b, n, err := Decode(s, i)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
		i += n
	}
	return out, nil
}

// Decode decodes the escape that starts with the backslash at s[i]. It
// returns the byte and the length of the escape in s.
func Decode(s string, i int) (byte, int, error) {
	if i+1 >= len(s) {
		return 0, 0, fmt.Errorf("%w: a trailing backslash (write \\\\ for one)", ErrBadEscape)
	}
	switch c := s[i+1]; c {
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case '0':
		return 0, 2, nil
	case '\\':
		return '\\', 2, nil
	case 'x':
		if i+4 <= len(s) {
			hi, okHi := HexValue(s[i+2])
			lo, okLo := HexValue(s[i+3])
			if okHi && okLo {
				return hi<<4 | lo, 4, nil
			}
		}
		return 0, 0, fmt.Errorf("%w: \\x needs two hex digits", ErrBadEscape)
	default:
		return 0, 0, fmt.Errorf("%w \\%c (want \\n \\r \\t \\0 \\\\ or \\xNN)", ErrBadEscape, c)
	}
}

// HexValue returns the value of one hex digit.
func HexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
