package sender

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestNonRetriableErrorsFailAtOnce: an error that retrying cannot fix
// fails the partition's batch at once, with the broker's details, while
// the other partitions of the same request succeed.
func TestNonRetriableErrorsFailAtOnce(t *testing.T) {
	invalidMsg := "compacted topic needs a key"
	tests := []struct {
		name string
		ans  answer
		err  *protocol.Error
		want []string
	}{
		{"topic authorization", errAnswer(protocol.ErrTopicAuthorizationFailed), protocol.ErrTopicAuthorizationFailed, nil},
		{"invalid record", answer{code: protocol.ErrInvalidRecord.Code, message: "one or more records have been rejected",
			recordErrors: []protocol.ProduceResponseRecordError{{BatchIndex: 1, BatchIndexErrorMessage: &invalidMsg}}},
			protocol.ErrInvalidRecord, []string{"record 2 of the batch: " + invalidMsg, "one or more records have been rejected"}},
		{"corrupt message", errAnswer(protocol.ErrCorruptMessage), protocol.ErrCorruptMessage, nil},
		{"unknown error code", answer{code: 9999}, nil, []string{"UNKNOWN_ERROR_CODE_9999"}},
	}
	for _, idempotent := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name
			if idempotent {
				name += "/idempotent"
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2},
					config: func(c *config) { c.Idempotence = idempotent }})
				bad := f.sendN("t", 0, 2)
				good := f.sendN("t", 1, 2)
				f.advance(testLinger)
				req := f.stepUntilProduce()[0]
				require.Len(t, f.batches(req), 2, "both partitions in one request")
				f.respond(req, map[accumulator.TopicPartition]answer{tp("t", 0): tt.ans})
				f.step()
				for _, p := range bad {
					o := f.outcome(p)
					require.Error(t, o.err)
					if tt.err != nil {
						assert.ErrorIs(t, o.err, tt.err)
					}
					for _, w := range tt.want {
						assert.Contains(t, o.err.Error(), w)
					}
					assert.NotErrorIs(t, o.err, ErrDeliveryTimeout)
				}
				for i, p := range good {
					require.NoError(t, f.outcome(p).err)
					assert.Equal(t, int64(i), f.outcome(p).offset)
				}
				f.advance(time.Second)
				f.requireNoProduce("not retried")
				f.requireExactlyOnce()
			})
		}
	}
}

// TestMessageTooLarge: a multi-record batch the broker refuses as too
// large is split in halves and sent again, keeping the record order; a
// single record too large fails.
func TestMessageTooLarge(t *testing.T) {
	for _, idempotent := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "idempotent"}[idempotent], func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: func(c *config) { c.Idempotence = idempotent }})
			positions := f.sendN("t", 0, 4)
			f.advance(testLinger)
			req := f.stepUntilProduce()[0]
			require.Len(t, f.batchFor(req, "t", 0).values, 4)
			f.respondAll(req, errAnswer(protocol.ErrMessageTooLarge))
			f.step()
			halves := f.respondAsSent(2) // without a backoff
			assert.Equal(t, values(positions[:2]...), f.batchFor(halves[0], "t", 0).values)
			assert.Equal(t, values(positions[2:]...), f.batchFor(halves[1], "t", 0).values)
			if idempotent {
				assert.Equal(t, int32(0), f.batchFor(halves[0], "t", 0).batch.FirstSequence)
				assert.Equal(t, int32(2), f.batchFor(halves[1], "t", 0).batch.FirstSequence)
				assert.Len(t, f.initRequests(), 1, "no new producer id needed")
			}
			for i, p := range positions {
				require.NoError(t, f.outcome(p).err)
				assert.Equal(t, int64(i), f.outcome(p).offset)
			}

			single := f.send("t", 0)
			f.advance(testLinger)
			req = f.stepUntilProduce()[0]
			f.respondAll(req, errAnswer(protocol.ErrMessageTooLarge))
			f.step()
			assert.ErrorIs(t, f.outcome(single).err, protocol.ErrMessageTooLarge)
			f.advance(time.Second)
			f.requireNoProduce("not retried")
			f.requireExactlyOnce()
		})
	}
}

// TestMessageTooLargeWithoutIdempotenceSplitsAtOnce: without sequences
// there is nothing to wait for; the batch is split even while another
// batch of its partition is in flight.
func TestMessageTooLargeWithoutIdempotenceSplitsAtOnce(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: configs(nonIdempotent, recordsPerBatch(2))})
	positions := f.sendN("t", 0, 4)
	reqs := f.stepUntilProduceN(2)
	f.respondAll(reqs[0], errAnswer(protocol.ErrMessageTooLarge))
	halves := f.stepUntilProduceN(2) // no backoff
	assert.Equal(t, values(positions[0]), f.batchFor(halves[0], "t", 0).values)
	assert.Equal(t, values(positions[1]), f.batchFor(halves[1], "t", 0).values)
	for _, r := range append(reqs[1:], halves...) {
		f.respondAll(r, success)
	}
	f.step()
	f.requireExactlyOnce()
	for _, p := range positions {
		require.NoError(t, f.outcome(p).err)
	}
}
