package escape

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is how many bytes of a value an error message quotes.
const MaxQuoted = 64

// QuoteClipped quotes s as %q does, clipped to its first MaxQuoted bytes
// (at a character boundary) when it is longer, saying how much was left
// out: an error never echoes a 100 KB argument whole.
func QuoteClipped(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	n := MaxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s... (%d bytes; the first %d shown)", strconv.Quote(s[:n]), len(s), n)
}
