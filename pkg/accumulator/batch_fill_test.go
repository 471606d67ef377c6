package accumulator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestBatchFillMatchesAppend appends the same random records (sizes from
// empty to oversized and too large, keys, headers, timestamps moving both
// ways, the sticky abort or not) to a real Accumulator, which never sends,
// and to a BatchFill: every result and error must be the same.
func TestBatchFillMatchesAppend(t *testing.T) {
	for _, codec := range []protocol.Codec{protocol.CodecNone, protocol.CodecLz4} {
		t.Run(codec.String(), func(t *testing.T) {
			cfg := testConfig()
			cfg.Codec = codec
			cfg.BatchSize = 2000
			cfg.MaxRequestSize = 6000
			cfg.BufferMemory = 64 << 20 // never waits: nothing is drained
			a, _ := newTestAccumulator(t, cfg)
			f := NewBatchFill(cfg)
			rnd := rand.New(rand.NewPCG(1, 2))
			ts := t0.UnixMilli()
			var created, aborted, tooLarge int
			for i := range 5000 {
				tp := TopicPartition{Topic: []string{"a", "b"}[rnd.IntN(2)], Partition: int32(rnd.IntN(3))}
				key, value, headers := randomRecord(rnd)
				ts += int64(rnd.IntN(200)) - 50
				abort := rnd.IntN(2) == 0
				want, wantErr := a.Append(context.Background(), tp, Record{Timestamp: ts, Key: key, Value: value, Headers: headers, Ref: Position{Record: int64(i)}}, nil, abort, t0)
				got, gotErr := f.Append(tp, ts, key, value, headers, abort)
				require.Equal(t, want, got, "record %d", i)
				if wantErr != nil {
					require.ErrorIs(t, gotErr, ErrRecordTooLarge, "record %d", i)
					require.Equal(t, wantErr.Error(), gotErr.Error(), "record %d", i)
					tooLarge++
				} else {
					require.NoError(t, gotErr, "record %d", i)
				}
				if got.NewBatchCreated {
					created++
				}
				if got.AbortForNewBatch {
					aborted++
				}
			}
			// The random mix reaches every branch.
			assert.Greater(t, created, 100)
			assert.Greater(t, aborted, 100)
			assert.Greater(t, tooLarge, 10)
		})
	}
}

// randomRecord returns a record of a random size: mostly small, some
// larger than a batch, a few larger than a request.
func randomRecord(rnd *rand.Rand) (key, value []byte, headers []protocol.Header) {
	if rnd.IntN(3) > 0 {
		key = make([]byte, rnd.IntN(20))
	}
	size := rnd.IntN(300)
	switch rnd.IntN(40) {
	case 0:
		size = 2000 + rnd.IntN(2000) // oversized: travels alone
	case 1:
		size = 6000 + rnd.IntN(100) // larger than a request
	}
	if size > 0 || rnd.IntN(2) == 0 {
		value = make([]byte, size)
	}
	for i := range rnd.IntN(3) {
		headers = append(headers, protocol.Header{Key: fmt.Sprintf("h%d", i), Value: make([]byte, rnd.IntN(10))})
	}
	return key, value, headers
}

// TestBatchFillStickyCount counts the batches of N unkeyed records of S
// bytes with a batch size of B, worked out by hand: a 100-byte value with a
// null key, no headers, the same timestamp and an offset delta under 64
// encodes to 109 bytes (length 2, attributes 1, timestamp delta 1, offset
// delta 1, key -1 1, value length 2 + 100, header count 1); a batch holds
// the 61-byte header and floor((B-61)/109) records.
func TestBatchFillStickyCount(t *testing.T) {
	for _, tc := range []struct {
		n, batchSize, wantBatches int
	}{
		{n: 100, batchSize: 1000, wantBatches: 13}, // 8 per batch
		{n: 8, batchSize: 1000, wantBatches: 1},
		{n: 9, batchSize: 1000, wantBatches: 2},
		{n: 10, batchSize: 61 + 109, wantBatches: 10}, // 1 per batch
		{n: 10, batchSize: 100, wantBatches: 10},      // each one oversized
	} {
		t.Run(fmt.Sprintf("%d-in-%d", tc.n, tc.batchSize), func(t *testing.T) {
			f := NewBatchFill(Config{BatchSize: tc.batchSize})
			tp := TopicPartition{Topic: "t"}
			value := make([]byte, 100)
			batches := 0
			for i := range tc.n {
				res, err := f.Append(tp, 1, nil, value, nil, true)
				require.NoError(t, err)
				if res.AbortForNewBatch {
					res, err = f.Append(tp, 1, nil, value, nil, false)
					require.NoError(t, err)
					require.True(t, res.NewBatchCreated, "record %d", i)
					batches++
				}
			}
			assert.Equal(t, tc.wantBatches, batches)
		})
	}
}
