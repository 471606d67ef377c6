package escape

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnescape(t *testing.T) {
	good := map[string]string{
		`\n`: "\n", `\r\n`: "\r\n", `\t`: "\t", `\0`: "\x00", `\\`: `\`, `\x1e`: "\x1e", `\xFF`: "\xff",
		"||": "||", `a\nb`: "a\nb", "": "", "é": "é", `\x00\x01`: "\x00\x01",
	}
	for in, want := range good {
		got, err := Unescape(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, []byte(want), got, in)
		}
	}
	for _, in := range []string{`\`, `a\`, `\q`, `\x`, `\x1`, `\xg0`, `\u0041`} {
		_, err := Unescape(in)
		assert.ErrorIs(t, err, ErrBadEscape, in)
	}
}

func TestQuoteClipped(t *testing.T) {
	assert.Equal(t, `"short"`, QuoteClipped("short"))
	long := strings.Repeat("x", 100_000)
	got := QuoteClipped(long)
	assert.Equal(t, `"`+strings.Repeat("x", MaxQuoted)+`"... (100000 bytes; the first 64 shown)`, got)
	utf := strings.Repeat("é", 40) // 80 bytes: cut at a character boundary
	assert.Equal(t, `"`+strings.Repeat("é", 32)+`"... (80 bytes; the first 64 shown)`, QuoteClipped(utf))
	odd := "a" + strings.Repeat("é", 40)
	assert.Equal(t, `"a`+strings.Repeat("é", 31)+`"... (81 bytes; the first 63 shown)`, QuoteClipped(odd))
}
