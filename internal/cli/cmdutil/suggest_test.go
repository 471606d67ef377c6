package cmdutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNearest(t *testing.T) {
	names := []string{"brokers", "topic", "linger", "metadata", "check"}
	tests := map[string]string{
		"broker": "brokers", "brokres": "brokers", "tpoic": "topic", "metdata": "metadata", "lingr": "linger",
		"chekc": "check", "compression": "", "": "",
	}
	for in, want := range tests {
		assert.Equal(t, want, Nearest(in, names, 2), in)
	}
	assert.Equal(t, 0, editDistance("abc", "abc"))
	assert.Equal(t, 1, editDistance("abc", "acb"))
	assert.Equal(t, 3, editDistance("", "abc"))
}
