package network

import (
	"math"
	"time"
)

// exponentialBackoff is Kafka's ExponentialBackoff with multiplier 2: the
// value after n failures is initial * 2^n, the exponent capped so that the
// term never exceeds ceiling, times a jitter factor, never above ceiling.
type exponentialBackoff struct {
	initial, ceiling time.Duration
	expMax           float64 // the exponent at which initial*2^exp reaches ceiling
	jitter           func() float64
}

// newExponentialBackoff returns a backoff growing from initial to ceiling. A
// ceiling below initial gives a constant ceiling. jitter returns a factor,
// typically in [0.8, 1.2]; nil means no jitter.
func newExponentialBackoff(initial, ceiling time.Duration, jitter func() float64) exponentialBackoff {
	initial = min(initial, ceiling)
	b := exponentialBackoff{initial: initial, ceiling: ceiling, jitter: jitter}
	if ceiling > initial {
		b.expMax = math.Log2(float64(ceiling) / float64(max(initial, 1)))
	}
	return b
}

// backoff returns the delay after the given number of failures.
func (b exponentialBackoff) backoff(failures int) time.Duration {
	if b.expMax == 0 {
		return b.initial
	}
	term := float64(b.ceiling) // initial * 2^expMax, without rounding errors
	if exp := float64(failures); exp < b.expMax {
		term = float64(b.initial) * math.Pow(2, exp)
	}
	if b.jitter != nil {
		term *= b.jitter()
	}
	if term >= float64(b.ceiling) {
		return b.ceiling
	}
	return time.Duration(term)
}
