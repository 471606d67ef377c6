package sender

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// wireBytes is the size of every Produce frame the mock broker received.
func (f *fixture) wireBytes() int64 {
	var n int64
	for _, req := range f.allProduce() {
		n += int64(len(req.Frame))
	}
	return n
}

// TestStatsCountRequestsBatchesRetriesAndSplits: every Produce request
// written counts with its frame's size and its batches, a retry and a split
// count once each, and the counters match what the broker received.
func TestStatsCountRequestsBatchesRetriesAndSplits(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}})
	assert.Equal(t, Stats{}, f.p.Stats(), "nothing sent yet")

	// Two partitions in one request: one request, two batches.
	a := f.sendN("t", 0, 4)
	b := f.sendN("t", 1, 1)
	f.advance(testLinger)
	req := f.stepUntilProduce()
	require.Len(t, req, 1)
	st := f.p.Stats()
	assert.Equal(t, int64(1), st.Requests)
	assert.Equal(t, int64(2), st.Batches)
	assert.Equal(t, int64(len(req[0].Frame)), st.WireBytes, "the frame as written, size prefix included")

	// Partition 0 too large (split in two), partition 1 retriable (retried
	// after the backoff).
	f.respond(req[0], map[accumulator.TopicPartition]answer{
		tp("t", 0): errAnswer(protocol.ErrMessageTooLarge),
		tp("t", 1): errAnswer(protocol.ErrNotEnoughReplicas),
	})
	f.step()
	f.advance(testRetryBackoff)
	all := append(a, b...)
	for i := 0; i < 50 && slices.ContainsFunc(all, f.pending); i++ {
		f.step()
		for _, r := range f.newProduce() {
			f.respondAll(r, success)
		}
	}
	for _, p := range all {
		require.NoError(t, f.outcome(p).err)
	}
	f.requireExactlyOnce()

	st = f.p.Stats()
	sent := f.allProduce()
	batches := 0
	for _, r := range sent {
		batches += len(f.batches(r))
	}
	assert.Equal(t, int64(len(sent)), st.Requests)
	assert.Equal(t, int64(batches), st.Batches)
	assert.Equal(t, int64(5), st.Batches, "2 first, then the 2 halves and the retry")
	assert.Equal(t, f.wireBytes(), st.WireBytes)
	assert.Equal(t, int64(1), st.Retries)
	assert.Equal(t, int64(1), st.Splits)
}
