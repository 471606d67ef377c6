package escape

import (
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
