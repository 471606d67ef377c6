package network

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestExponentialBackoff(t *testing.T) {
	ms := time.Millisecond
	one := func() float64 { return 1 }
	b := newExponentialBackoff(50*ms, time.Second, one)
	var got []time.Duration
	for i := range 8 {
		got = append(got, b.backoff(i))
	}
	assert.Equal(t, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second, time.Second}, got)

	high := newExponentialBackoff(50*ms, time.Second, func() float64 { return 1.2 })
	assert.Equal(t, 60*ms, high.backoff(0))
	assert.Equal(t, time.Second, high.backoff(30), "jitter never exceeds the maximum")

	constant := newExponentialBackoff(time.Second, 200*ms, one)
	assert.Equal(t, 200*ms, constant.backoff(0), "a maximum below the initial value wins")
	assert.Equal(t, 200*ms, constant.backoff(5))

	noJitter := newExponentialBackoff(10*ms, 40*ms, nil)
	assert.Equal(t, 40*ms, noJitter.backoff(1<<30), "huge failure counts do not overflow")
}
