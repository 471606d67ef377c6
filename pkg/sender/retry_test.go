package sender

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestRetriablePartitionErrors: a retriable error puts the batch back; it
// is sent again only once the retry backoff has passed, with the same
// producer id and sequence, and then delivered. Errors that say the
// metadata is stale make the producer refresh it.
func TestRetriablePartitionErrors(t *testing.T) {
	tests := []struct {
		err          *protocol.Error
		wantMetadata bool
	}{
		{protocol.ErrNotLeaderOrFollower, true},
		{protocol.ErrNotEnoughReplicas, false},
		{protocol.ErrRequestTimedOut, false},
		{protocol.ErrNotEnoughReplicasAfterAppend, false},
	}
	for _, tt := range tests {
		t.Run(tt.err.Name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			positions := f.sendN("t", 0, 2)
			f.advance(testLinger)
			first := f.batchFor(f.stepUntilProduce()[0], "t", 0)
			req := f.allProduce()[0]
			metadataBefore := f.metadataRequests()

			f.respondAll(req, errAnswer(tt.err))
			f.step()
			for _, p := range positions {
				require.True(t, f.pending(p), "a retriable error is not reported")
			}
			f.advance(testRetryBackoff - time.Millisecond)
			f.requireNoProduce("the retry waits for its backoff")
			if tt.wantMetadata {
				assert.Greater(t, f.metadataRequests(), metadataBefore, "metadata refreshed")
			} else {
				assert.Equal(t, metadataBefore, f.metadataRequests(), "no metadata refresh needed")
			}

			f.advance(time.Millisecond)
			retry := f.stepUntilProduce()
			require.Len(t, retry, 1)
			again := f.batchFor(retry[0], "t", 0)
			assert.Equal(t, first.values, again.values)
			assert.Equal(t, first.batch.ProducerID, again.batch.ProducerID)
			assert.Equal(t, first.batch.ProducerEpoch, again.batch.ProducerEpoch)
			assert.Equal(t, first.batch.FirstSequence, again.batch.FirstSequence, "same sequence, so the broker deduplicates")
			f.respondAll(retry[0], success)
			f.step()
			for i, p := range positions {
				o := f.outcome(p)
				require.NoError(t, o.err)
				assert.Equal(t, int64(i), o.offset)
			}
			f.requireExactlyOnce()
		})
	}
}

// TestRetryGoesToTheNewLeader: after NOT_LEADER_OR_FOLLOWER the refreshed
// metadata names another leader, which gets the retry.
func TestRetryGoesToTheNewLeader(t *testing.T) {
	f := newFixture(t, fixtureOptions{brokers: 2})
	p := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	require.Equal(t, int32(1), req.Node)
	f.setLeader("t", 0, 2)
	f.respondAll(req, errAnswer(protocol.ErrNotLeaderOrFollower))
	f.step()
	f.advance(testRetryBackoff)
	retry := f.stepUntilProduce()[0]
	assert.Equal(t, int32(2), retry.Node)
	assert.Equal(t, f.batchFor(req, "t", 0).batch.FirstSequence, f.batchFor(retry, "t", 0).batch.FirstSequence)
	f.respondAll(retry, success)
	f.step()
	require.NoError(t, f.outcome(p).err)
	f.requireExactlyOnce()
}

// TestConnectionLossRetries: a request lost with its connection, by a
// disconnect or by the request timeout, is retried after the backoff on a
// new connection.
func TestConnectionLossRetries(t *testing.T) {
	tests := []struct {
		name   string
		lose   func(f *fixture, req networktest.SentRequest)
		reason error
	}{
		{"disconnect", func(f *fixture, req networktest.SentRequest) {
			f.sel.Disconnect(req.Conn, io.ErrUnexpectedEOF)
		}, io.ErrUnexpectedEOF},
		{"request timeout", func(f *fixture, req networktest.SentRequest) {
			f.advance(testRequestTimeout - time.Millisecond)
			f.step()
			require.False(f.t, f.sel.IsClosed(req.Conn), "not before the request timeout")
			f.advance(time.Millisecond)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			positions := f.sendN("t", 0, 3)
			f.advance(testLinger)
			req := f.stepUntilProduce()[0]
			tt.lose(f, req)
			f.step()
			require.True(t, f.sel.IsClosed(req.Conn))
			for _, p := range positions {
				require.True(t, f.pending(p))
			}
			lastErr := f.s.lastErr
			require.Len(t, lastErr, 1)
			for _, err := range lastErr {
				if tt.reason != nil {
					assert.ErrorIs(t, err, tt.reason)
				}
			}
			f.advance(testRetryBackoff - time.Millisecond)
			f.requireNoProduce("backoff")
			f.advance(time.Millisecond)
			retry := f.stepUntilProduce()[0]
			assert.NotEqual(t, req.Conn, retry.Conn, "a new connection")
			assert.Equal(t, f.batchFor(req, "t", 0).batch.FirstSequence, f.batchFor(retry, "t", 0).batch.FirstSequence)
			f.respondAll(retry, success)
			f.step()
			for i, p := range positions {
				require.NoError(t, f.outcome(p).err)
				assert.Equal(t, int64(i), f.outcome(p).offset)
			}
			f.requireExactlyOnce()
		})
	}
}

// TestRetryBackoffGrows: each further attempt waits twice as long, up to
// the maximum.
func TestRetryBackoffGrows(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: func(c *config) { c.Accumulator.RetryBackoffMax = 300 * time.Millisecond }})
	p := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	for _, backoff := range []time.Duration{100, 200, 300, 300} {
		backoff *= time.Millisecond
		f.respondAll(req, errAnswer(protocol.ErrNotEnoughReplicas))
		f.step()
		f.advance(backoff - time.Millisecond)
		f.requireNoProduce("backoff")
		f.advance(time.Millisecond)
		req = f.stepUntilProduce()[0]
	}
	f.respondAll(req, success)
	f.step()
	require.NoError(t, f.outcome(p).err)
	f.requireExactlyOnce()
}

// TestMalformedResponseFailsTheBatch: a response that does not decode is
// not mistaken for success.
func TestMalformedResponseFailsTheBatch(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: nonIdempotent})
	p := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	f.sel.Receive(req.Conn, []byte{0, 0, 0, byte(req.Header.CorrelationID), 0, 0})
	f.step()
	o := f.outcome(p)
	require.Error(t, o.err)
	assert.False(t, errors.Is(o.err, ErrDeliveryTimeout))
	f.requireExactlyOnce()
}

// TestRetriesLimit: with Retries N, a batch is sent at most N+1 times and
// then fails with the last error, delivery time left or not; with 0 the
// first retriable error fails it.
func TestRetriesLimit(t *testing.T) {
	for _, n := range []int{0, 2} {
		f := newFixture(t, fixtureOptions{config: func(c *config) { c.Retries, c.Idempotence, c.Acks = n, false, LeaderAck }})
		p := f.send("t", 0)
		f.advance(testLinger)
		for attempt := 0; attempt <= n; attempt++ {
			req := f.stepUntilProduce()
			require.Len(t, req, 1, "attempt %d of %d", attempt+1, n+1)
			require.True(t, f.pending(p))
			f.respondAll(req[0], errAnswer(protocol.ErrNotEnoughReplicas))
			f.step()
			f.advance(testRetryBackoff * 8)
		}
		require.False(t, f.pending(p), "failed after %d retries", n)
		o := f.outcome(p)
		assert.ErrorIs(t, o.err, protocol.ErrNotEnoughReplicas)
		f.requireNoProduce("no attempt after the last retry")
	}
}

func TestRetriesConfig(t *testing.T) {
	c := defaultConfig()
	c.Retries = 0
	assert.ErrorIs(t, c.validate(), ErrConfig, "an idempotent producer needs retries")
	c.Idempotence = false
	assert.NoError(t, c.validate())
	c.Retries = -1
	assert.ErrorIs(t, c.validate(), ErrConfig)
}
