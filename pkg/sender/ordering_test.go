package sender

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// maxInFlight sets the requests in flight per connection.
func maxInFlight(n int) func(*config) {
	return func(c *config) { c.Network.MaxInFlightPerConnection = n }
}

// TestMaxInFlightOneKeepsOrder: with one request in flight per connection
// and no idempotence, a partition has at most one batch in flight, even
// across a leader change, so a retry cannot overtake or be overtaken.
func TestMaxInFlightOneKeepsOrder(t *testing.T) {
	f := newFixture(t, fixtureOptions{brokers: 2, config: configs(nonIdempotent, maxInFlight(1), recordsPerBatch(1))})
	a := f.send("t", 0)
	f.advance(testLinger)
	first := f.stepUntilProduce()[0]
	require.Equal(t, int32(1), first.Node)

	// The leader moves to node 2 while the batch is in flight to node 1.
	f.setLeader("t", 0, 2)
	f.p.md.RequestUpdate()
	f.advance(time.Second)
	f.step()
	require.Equal(t, int32(2), mustLeader(t, f, "t", 0))
	b := f.send("t", 0)
	f.advance(testLinger)
	f.requireNoProduce("the partition has a batch in flight")

	f.respondAll(first, errAnswer(protocol.ErrNotLeaderOrFollower))
	f.step()
	f.advance(testRetryBackoff)
	retry := f.stepUntilProduce()
	require.Len(t, retry, 1)
	assert.Equal(t, int32(2), retry[0].Node)
	assert.Equal(t, values(a), f.batchFor(retry[0], "t", 0).values)
	f.requireNoProduce("still one at a time")
	f.respondAll(retry[0], success)
	next := f.stepUntilProduce()[0]
	assert.Equal(t, values(b), f.batchFor(next, "t", 0).values)
	f.respondAll(next, success)
	f.step()
	assert.Equal(t, values(a, b), f.log(tp("t", 0)))
	f.requireExactlyOnce()
}

// TestMaxInFlightFive: without idempotence, five requests go to a broker
// before the first answer, each with the next batch of the partition; the
// sixth waits for an answer.
func TestMaxInFlightFive(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: configs(nonIdempotent, maxInFlight(5), recordsPerBatch(1))})
	positions := f.sendN("t", 0, 7)
	f.advance(testLinger)
	reqs := f.stepUntilProduceN(5)
	f.requireNoProduce("five in flight")
	f.respondAll(reqs[0], success)
	reqs = append(reqs, f.stepUntilProduce()...)
	require.Len(t, reqs, 6)
	f.requireNoProduce("five in flight again")
	for _, r := range reqs[1:] {
		f.respondAll(r, success)
	}
	reqs = append(reqs, f.stepUntilProduce()...)
	f.respondAll(reqs[6], success)
	f.step()
	for i, r := range reqs {
		assert.Equal(t, values(positions[i]), f.batchFor(r, "t", 0).values)
	}
	assert.Equal(t, values(positions...), f.log(tp("t", 0)))
	f.requireExactlyOnce()
}
