package network

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTestInFlight(corr int32, sent bool, at time.Time, timeout time.Duration) *inFlightRequest {
	return &inFlightRequest{req: &ClientRequest{CorrelationID: corr, Timeout: timeout}, sendTime: at, sent: sent}
}

func TestInFlightRequests(t *testing.T) {
	now := time.Unix(100, 0)
	f := newInFlightRequests(2)
	assert.True(t, f.canSendMore(1))
	assert.True(t, f.isEmpty())
	assert.Nil(t, f.oldest(1))
	assert.Nil(t, f.completeOldest(1))
	assert.Nil(t, f.markNextSent(1))

	a := newTestInFlight(1, false, now, time.Second)
	f.add(1, a)
	assert.False(t, f.canSendMore(1), "newest not written")
	assert.True(t, f.canSendMore(2), "per node")
	assert.Same(t, a, f.markNextSent(1))
	assert.True(t, f.canSendMore(1))
	b := newTestInFlight(2, true, now.Add(time.Second), 3*time.Second)
	f.add(1, b)
	assert.False(t, f.canSendMore(1), "at the maximum")
	assert.Equal(t, 2, f.count(1))

	d, ok := f.nextDeadline()
	require.True(t, ok)
	assert.Equal(t, now.Add(time.Second), d)
	assert.Empty(t, f.nodesWithTimedOutRequests(nil, now.Add(999*time.Millisecond)))
	assert.Equal(t, []int32{1}, f.nodesWithTimedOutRequests(nil, now.Add(time.Second)))

	assert.Same(t, a, f.completeOldest(1))
	assert.Same(t, b, f.oldest(1))
	f.remove(1, b)
	f.remove(1, b) // absent: no effect
	assert.Equal(t, 0, f.count(1))
	assert.True(t, f.isEmpty())
	_, ok = f.nextDeadline()
	assert.False(t, ok)

	f.add(3, a)
	f.add(3, b)
	got := f.clearAll(3)
	assert.Equal(t, []*inFlightRequest{a, b}, got)
	assert.True(t, f.isEmpty())
}
