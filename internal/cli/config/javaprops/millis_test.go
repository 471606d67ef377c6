package javaprops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMillis(t *testing.T) {
	for in, want := range map[string]string{"1500": "1.5s", "0": "0s", " 20 ": "20ms", "0.5": "500µs", "2.25": "2.25ms"} {
		got, err := millis(in)
		assert.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"-1", "5ms", "", "9223372036854775807", "1e3", "NaN", "Inf", "0x10"} {
		_, err := millis(in)
		assert.ErrorIs(t, err, ErrBadValue, in)
	}
}
