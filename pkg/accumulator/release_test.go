package accumulator

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestCompressedBatchReleasesRecords: once a batch is compressed its
// uncompressed records go back to the buffer memory; reports still carry
// each record's offset, timestamp and position, and a split still has the
// records (decompressed).
func TestCompressedBatchReleasesRecords(t *testing.T) {
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprintf("split=%v", split), func(t *testing.T) {
			cfg := testConfig()
			cfg.BatchSize = 16 << 10
			cfg.Codec = protocol.CodecLz4
			cfg.ResultRecords = false
			a, rec := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 1}, 1)
			tp := TopicPartition{"t", 0}
			const n = 20
			for i := range n {
				ts := int64(1_000_000 + 7*i - (i%3)*5) // not monotonic
				_, err := a.Append(context.Background(), tp, Record{Timestamp: ts, Key: nil, Value: fmt.Appendf(nil, "value-%d", i), Headers: nil, Ref: Position{Source: 2, Record: int64(i + 1)}}, nil, false, t0)
				require.NoError(t, err)
			}
			b := a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, nil)[1][0]
			used := cfg.BufferMemory - a.pool.unused()
			require.NoError(t, b.Close(protocol.NewCompressor()))
			assert.Nil(t, b.buf, "uncompressed records released")
			assert.Less(t, cfg.BufferMemory-a.pool.unused(), used+int64(cap(b.compressed))+1, "only the compressed bytes held")
			batches := []*Batch{b}
			if split {
				batches = a.Split(b, t0.Add(time.Second))
				require.Len(t, batches, 2)
				for _, p := range batches {
					require.NoError(t, p.Close(protocol.NewCompressor()))
				}
			}
			offset := int64(500)
			for _, p := range batches {
				require.True(t, p.Done(offset, -1, nil))
				offset += int64(p.RecordCount())
				a.Deallocate(p)
			}
			got := rec.all()
			require.Len(t, got, n)
			for i, r := range got {
				assert.Equal(t, Position{Source: 2, Record: int64(i + 1)}, r.Position)
				assert.Equal(t, int64(500+i), r.Offset)
				assert.Equal(t, int64(1_000_000+7*i-(i%3)*5), r.Timestamp)
				assert.NoError(t, r.Err)
			}
			assert.Equal(t, cfg.BufferMemory, a.pool.unused(), "all memory back")
		})
	}
}

// TestWideTimestampsKeepRecords: timestamps too far apart for the record
// list are read from the records, which a compressed batch then keeps.
func TestWideTimestampsKeepRecords(t *testing.T) {
	cfg := testConfig()
	cfg.Codec = protocol.CodecZstd
	cfg.ResultRecords = false
	a, rec := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 1}, 1)
	tp := TopicPartition{"t", 0}
	stamps := []int64{1_700_000_000_000, 1_700_000_000_000 + 40*24*3600*1000, 1_600_000_000_000}
	for i, ts := range stamps {
		_, err := a.Append(context.Background(), tp, Record{Timestamp: ts, Key: nil, Value: []byte("v"), Headers: nil, Ref: Position{Record: int64(i)}}, nil, false, t0)
		require.NoError(t, err)
	}
	b := a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, nil)[1][0]
	require.NoError(t, b.Close(protocol.NewCompressor()))
	assert.NotNil(t, b.buf, "records kept for their timestamps")
	require.True(t, b.Done(0, -1, nil))
	a.Deallocate(b)
	got := rec.all()
	require.Len(t, got, len(stamps))
	for i, r := range got {
		assert.Equal(t, stamps[i], r.Timestamp)
	}
}
