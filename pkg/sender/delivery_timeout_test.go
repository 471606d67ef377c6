package sender

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestUnsendableBatchExpiresAtDeliveryTimeout: a batch that cannot be sent
// fails with ErrDeliveryTimeout exactly at CreatedAt + DeliveryTimeout, and
// the error says why it could not be sent.
func TestUnsendableBatchExpiresAtDeliveryTimeout(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *fixture)
		want  []string
	}{
		{"no leader", func(f *fixture) {}, []string{"LEADER_NOT_AVAILABLE", "t/1"}},
		{"leader not in the broker list", func(f *fixture) {}, []string{"broker 7, is not in the metadata's broker list"}},
		{"leader unreachable", func(f *fixture) {
			f.sel.AutoConnect(false) // new connections never complete
			conn, ok := f.sel.LastConn(2)
			require.True(f.t, ok)
			f.sel.Disconnect(conn, errors.New("connection refused"))
			f.step()
		}, []string{"broker 2", "could not be reached"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{brokers: 2, topics: map[string]int32{"t": 2},
				cluster: func(md *protocol.MetadataResponse) {
					switch tt.name {
					case "no leader":
						md.Topics[0].Partitions[1].LeaderID = -1
						md.Topics[0].Partitions[1].ErrorCode = protocol.ErrLeaderNotAvailable.Code
					case "leader not in the broker list":
						md.Topics[0].Partitions[1].LeaderID = 7
					}
				}})
			tt.setup(f)
			created := f.now()
			p := f.send("t", 1)
			other := f.send("t", 0) // a healthy partition is not held up
			f.advance(testLinger)
			req := f.stepUntilProduce()
			require.Len(t, req, 1)
			require.Equal(t, []string{value(other)}, f.batchFor(req[0], "t", 0).values)
			f.respondAll(req[0], success)
			for f.now().Before(created.Add(testDeliveryTimeout - 10*time.Second)) {
				f.advanceStep(10 * time.Second)
				require.True(t, f.pending(p))
			}
			f.clock.Set(created.Add(testDeliveryTimeout - time.Nanosecond))
			f.step()
			require.True(t, f.pending(p), "not before the delivery timeout")
			require.Empty(t, f.newProduce())

			f.clock.Set(created.Add(testDeliveryTimeout))
			f.step()
			o := f.outcome(p)
			require.ErrorIs(t, o.err, ErrDeliveryTimeout)
			for _, w := range tt.want {
				assert.Contains(t, o.err.Error(), w)
			}
			assert.Equal(t, int64(-1), o.offset)
			require.NoError(t, f.outcome(other).err)
			f.requireExactlyOnce()
		})
	}
}

// TestRetriedBatchExpiresWithItsLastError: a batch retried until the
// delivery timeout reports the timeout with the last error it got.
func TestRetriedBatchExpiresWithItsLastError(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: func(c *config) {
		c.Accumulator.DeliveryTimeout = 10 * time.Second
		c.Accumulator.RetryBackoff = 4 * time.Second
		c.Accumulator.RetryBackoffMax = 8 * time.Second
	}})
	created := f.now()
	p := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	f.respondAll(req, errAnswer(protocol.ErrNotEnoughReplicas))
	f.step()
	f.advance(4 * time.Second)
	req = f.stepUntilProduce()[0]
	f.respondAll(req, answer{code: protocol.ErrNotEnoughReplicas.Code, message: "isr 1 < 2"})
	f.step()
	f.clock.Set(created.Add(10*time.Second - time.Nanosecond))
	f.step()
	require.True(t, f.pending(p), "backing off, still in time")
	f.clock.Set(created.Add(10 * time.Second))
	f.step()
	o := f.outcome(p)
	require.ErrorIs(t, o.err, ErrDeliveryTimeout)
	assert.ErrorIs(t, o.err, protocol.ErrNotEnoughReplicas, "the last error is kept")
	assert.Contains(t, o.err.Error(), "isr 1 < 2")
	assert.Contains(t, o.err.Error(), "2 attempts")
	assert.NotContains(t, o.err.Error(), maybeWrittenNote, "NOT_ENOUGH_REPLICAS refuses before appending")
	f.requireExactlyOnce()
}

// TestFailureSaysWhenTheRecordMayBeWritten: a record that fails after an
// attempt the broker may have stored (REQUEST_TIMED_OUT,
// NOT_ENOUGH_REPLICAS_AFTER_APPEND, a lost connection...) says so; one
// whose attempts were all refused outright does not.
func TestFailureSaysWhenTheRecordMayBeWritten(t *testing.T) {
	lose := func(f *fixture, req networktest.SentRequest) { f.sel.Disconnect(req.Conn, errors.New("reset")) }
	answerWith := func(e *protocol.Error) func(*fixture, networktest.SentRequest) {
		return func(f *fixture, req networktest.SentRequest) { f.respondAll(req, errAnswer(e)) }
	}
	tests := []struct {
		name  string
		first func(*fixture, networktest.SentRequest) // the first attempt's end
		last  func(*fixture, networktest.SentRequest) // the last attempt's end
		maybe bool
	}{
		{"timed out, then out of time", answerWith(protocol.ErrRequestTimedOut), answerWith(protocol.ErrRequestTimedOut), true},
		{"appended without enough replicas, then refused", answerWith(protocol.ErrNotEnoughReplicasAfterAppend), answerWith(protocol.ErrTopicAuthorizationFailed), true},
		{"connection lost, then refused", lose, answerWith(protocol.ErrInvalidRecord), true},
		{"not leader, then out of time", answerWith(protocol.ErrNotLeaderOrFollower), answerWith(protocol.ErrNotLeaderOrFollower), false},
		{"not leader, then refused", answerWith(protocol.ErrNotLeaderOrFollower), answerWith(protocol.ErrInvalidRecord), false},
	}
	for _, idempotent := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/idempotence=%v", tt.name, idempotent), func(t *testing.T) {
				f := newFixture(t, fixtureOptions{config: func(c *config) {
					c.Idempotence = idempotent
					c.Accumulator.DeliveryTimeout = 10 * time.Second
				}})
				if idempotent {
					f.prime("t", 0)
				}
				created := f.now()
				p := f.send("t", 0)
				f.advance(testLinger)
				tt.first(f, f.stepUntilProduce()[0])
				f.step()
				f.clock.Set(created.Add(10*time.Second - time.Second))
				req := f.stepUntilProduce()[0]
				f.clock.Set(created.Add(10*time.Second - time.Millisecond))
				tt.last(f, req)
				f.pollWait = time.Millisecond // answered as the delivery timeout passes
				f.step()
				o := f.outcome(p)
				require.Error(t, o.err)
				if tt.maybe {
					assert.Contains(t, o.err.Error(), maybeWrittenNote)
				} else {
					assert.NotContains(t, o.err.Error(), maybeWrittenNote)
				}
				if idempotent {
					requireSequenceGivenBack(t, f, !tt.maybe)
				}
				f.requireExactlyOnce()
			})
		}
	}
}

// TestRetriableErrorAfterDeliveryTimeout: a retriable answer that comes
// after the delivery timeout ends the batch with ErrDeliveryTimeout.
func TestRetriableErrorAfterDeliveryTimeout(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: func(c *config) { c.Accumulator.DeliveryTimeout = 40 * time.Second }})
	created := f.now()
	p := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	f.clock.Set(created.Add(40*time.Second - time.Millisecond))
	f.respondAll(req, errAnswer(protocol.ErrNotLeaderOrFollower))
	f.pollWait = time.Millisecond // the response arrives as the deadline passes
	f.step()
	o := f.outcome(p)
	require.ErrorIs(t, o.err, ErrDeliveryTimeout)
	assert.ErrorIs(t, o.err, protocol.ErrNotLeaderOrFollower)
	assert.NotContains(t, o.err.Error(), "may or may not", "the broker answered")
	f.requireExactlyOnce()
}

// TestInFlightBatchExpires: a batch whose delivery timeout passes while
// its request is in flight is reported failed once, saying the outcome is
// unknown; its late response changes nothing for the callback, and its
// memory is released only when the request completes.
func TestInFlightBatchExpires(t *testing.T) {
	for _, late := range []string{"success", "error", "disconnect"} {
		t.Run(late, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: configs(nonIdempotent, func(c *config) {
				c.Accumulator.DeliveryTimeout = 20 * time.Second // shorter than the request timeout
				c.Accumulator.BatchSize = 1024
				c.Accumulator.BufferMemory = 1024 // one batch buffer takes it all
			})})
			created := f.now()
			positions := f.sendN("t", 0, 2)
			f.advance(testLinger)
			req := f.stepUntilProduce()[0]
			f.clock.Set(created.Add(20*time.Second - time.Nanosecond))
			f.step()
			require.True(t, f.pending(positions[0]))

			f.clock.Set(created.Add(20 * time.Second))
			f.step()
			for _, p := range positions {
				o := f.outcome(p)
				require.ErrorIs(t, o.err, ErrDeliveryTimeout)
				assert.Contains(t, o.err.Error(), "may or may not have been written")
			}
			assert.Equal(t, 1, f.s.inFlight.requests, "the request is still in flight")

			cancelled, cancel := context.WithCancel(context.Background())
			cancel()
			rec := &Record{Topic: "t", Partition: 0, Value: []byte("x")}
			err := f.produce(cancelled, rec, f.position())
			require.ErrorIs(t, err, context.Canceled, "the expired batch still holds the memory")

			switch late {
			case "success":
				f.respondAll(req, success)
			case "error":
				f.respondAll(req, errAnswer(protocol.ErrNotLeaderOrFollower))
			case "disconnect":
				f.sel.Disconnect(req.Conn, errors.New("reset"))
			}
			f.step()
			assert.Zero(t, f.s.inFlight.requests)
			for _, p := range positions {
				require.Len(t, f.outcomesOf(p), 1, "the late answer is not reported")
				require.ErrorIs(t, f.outcome(p).err, ErrDeliveryTimeout)
			}
			require.NoError(t, f.produce(cancelled, rec, f.position()), "memory released once the request completed")
			f.advance(testRetryBackoff)
			next := f.stepUntilProduce()[0]
			assert.Equal(t, []string{"x"}, f.batchFor(next, "t", 0).values, "the expired batch is not retried")
		})
	}
}

// requireSequenceGivenBack sends the next record of t/0, whose previous
// batch (sequence 1, after a primed sequence 0) failed: it reuses sequence
// 1 when the failed batch was provably not written, and needs a new
// producer id otherwise.
func requireSequenceGivenBack(t *testing.T, f *fixture, givenBack bool) {
	t.Helper()
	next := f.send("t", 0)
	f.advance(testLinger)
	r := f.stepUntilProduce()[0]
	if givenBack {
		assert.Equal(t, firstProducerID, f.producerID(r, "t", 0))
		assert.Equal(t, int32(1), f.sequence(r, "t", 0), "the sequence is given back")
	} else {
		assert.Equal(t, firstProducerID+1, f.producerID(r, "t", 0), "a new producer id")
	}
	f.respondAll(r, success)
	f.step()
	require.NoError(t, f.outcome(next).err)
}

// TestWaitingForALeaderDoesNotSpin: while a partition has no usable
// leader, the Sender asks for metadata once per update and polls with a
// timeout, instead of waking its own poll every turn.
func TestWaitingForALeaderDoesNotSpin(t *testing.T) {
	tests := map[string]func(*protocol.MetadataResponse){
		"leaderless": func(md *protocol.MetadataResponse) {
			md.Topics[0].Partitions[0].LeaderID = -1
			md.Topics[0].Partitions[0].ErrorCode = protocol.ErrLeaderNotAvailable.Code
		},
		"leader not in the broker list": func(md *protocol.MetadataResponse) { md.Topics[0].Partitions[0].LeaderID = 7 },
	}
	for name, cluster := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{cluster: cluster})
			f.send("t", 0)
			f.advanceStep(testLinger)
			updates := f.p.md.UpdateVersion()
			wakeups, polls := f.sel.Wakeups(), len(f.sel.PollTimeouts())
			for i := 0; i < 10; i++ {
				f.step()
			}
			assert.LessOrEqual(t, f.sel.Wakeups()-wakeups, 1, "the Sender wakes its own poll")
			for _, d := range f.sel.PollTimeouts()[polls:] {
				assert.Positive(t, d, "a poll without timeout")
			}
			require.Equal(t, updates, f.p.md.UpdateVersion(), "no metadata update meanwhile")
			before := f.metadataRequests()
			f.advanceStep(time.Second)
			f.step()
			assert.Equal(t, before+1, f.metadataRequests(), "asked again after the backoff")
			f.advance(testDeliveryTimeout)
			f.step()
			f.requireExactlyOnce()
		})
	}
}
