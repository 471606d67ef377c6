package javaprops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMillis(t *testing.T) {
	got, err := millis("1500")
	assert.NoError(t, err)
	assert.Equal(t, "1.5s", got)
	got, err = millis("0")
	assert.NoError(t, err)
	assert.Equal(t, "0s", got)
	for _, in := range []string{"-1", "5ms", "1.5", "", "9223372036854775807"} {
		_, err := millis(in)
		assert.ErrorIs(t, err, ErrBadValue, in)
	}
}
