package network

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// By default a session is re-authenticated at a random 85-95% of its
// lifetime, as in the Java client, and the share varies.
func TestDefaultReauthJitter(t *testing.T) {
	jitter := Config{}.withDefaults().ReauthJitter
	lo, hi := 1.0, 0.0
	for range 10_000 {
		j := jitter()
		assert.GreaterOrEqual(t, j, 0.85)
		assert.Less(t, j, 0.95)
		lo, hi = min(lo, j), max(hi, j)
	}
	assert.Less(t, lo, 0.86, "the low end is reached")
	assert.Greater(t, hi, 0.94, "the high end is reached")
}
