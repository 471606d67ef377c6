package accumulator

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/pkg/protocol"
)

var codecs = []protocol.Codec{protocol.CodecNone, protocol.CodecGzip, protocol.CodecSnappy, protocol.CodecLz4, protocol.CodecZstd}

// checkEncoded closes b and checks its bytes with kmsg as the oracle: the
// header fields, the CRC32C, a byte-for-byte re-encoding, and the records
// (decompressed with protocol.Decompress) parsed by both kmsg.Record and
// protocol.Record. It returns the records.
func checkEncoded(t *testing.T, b *Batch, codec protocol.Codec) []protocol.Record {
	t.Helper()
	require.NoError(t, b.Close(protocol.NewCompressor()))
	enc := b.Encoded()
	require.Equal(t, len(enc), b.EncodedSize())
	var kb kmsg.RecordBatch
	require.NoError(t, kb.ReadFrom(enc))
	assert.Equal(t, kb.AppendTo(nil), enc, "kmsg re-encodes the same bytes")
	assert.Equal(t, int64(0), kb.FirstOffset)
	assert.Equal(t, int32(len(enc)-12), kb.Length)
	assert.Equal(t, int32(-1), kb.PartitionLeaderEpoch)
	assert.Equal(t, int8(2), kb.Magic)
	assert.Equal(t, crc32.Checksum(enc[21:], crc32.MakeTable(crc32.Castagnoli)), uint32(kb.CRC))
	assert.Equal(t, int16(codec), kb.Attributes&0x07)
	assert.Equal(t, int32(b.RecordCount()), kb.NumRecords)
	assert.Equal(t, int32(b.RecordCount()-1), kb.LastOffsetDelta)
	assert.Equal(t, b.ProducerID(), kb.ProducerID)
	assert.Equal(t, b.ProducerEpoch(), kb.ProducerEpoch)
	assert.Equal(t, b.BaseSequence(), kb.FirstSequence)

	raw, err := protocol.Decompress(codec, kb.Records, 64<<20)
	require.NoError(t, err)
	records := make([]protocol.Record, kb.NumRecords)
	r := protocol.NewReader(raw)
	maxTs := int64(-1 << 63)
	for i := range records {
		var kr kmsg.Record
		require.NoError(t, kr.ReadFrom(raw[r.Offset():]))
		require.NoError(t, records[i].Decode(r))
		assert.Equal(t, int32(i), records[i].OffsetDelta)
		assert.Equal(t, int32(i), kr.OffsetDelta)
		assert.Equal(t, records[i].TimestampDelta, kr.TimestampDelta64)
		assert.Equal(t, records[i].Key, kr.Key)
		assert.Equal(t, records[i].Value, kr.Value)
		require.Len(t, kr.Headers, len(records[i].Headers))
		for j, h := range kr.Headers {
			assert.Equal(t, records[i].Headers[j], protocol.Header{Key: h.Key, Value: h.Value})
		}
		maxTs = max(maxTs, kb.FirstTimestamp+records[i].TimestampDelta)
	}
	assert.Zero(t, r.Remaining(), "no bytes after the records")
	assert.Equal(t, int64(0), records[0].TimestampDelta, "the base timestamp is the first record's")
	assert.Equal(t, maxTs, kb.MaxTimestamp)
	return records
}

type inputRecord struct {
	ts         int64
	key, value []byte
	headers    []protocol.Header
}

// mixedRecords covers null and empty keys and values, headers with null
// values, large values and timestamps older than the first.
func mixedRecords() []inputRecord {
	return []inputRecord{
		{ts: 1_700_000_000_000, key: nil, value: []byte("first")},
		{ts: 1_700_000_000_500, key: []byte{}, value: nil},
		{ts: 1_699_999_999_000, key: []byte("k"), value: []byte{}, headers: []protocol.Header{{Key: "a", Value: []byte("1")}, {Key: "null", Value: nil}}},
		{ts: 1_700_000_100_000, key: []byte("big"), value: value(7, 20_000)},
		{ts: 1_700_000_000_001, key: []byte("last"), value: []byte("v"), headers: []protocol.Header{{Key: "", Value: []byte{}}}},
	}
}

func TestEncodedBatchMatchesKmsg(t *testing.T) {
	for _, codec := range codecs {
		t.Run(codec.String(), func(t *testing.T) {
			cfg := testConfig()
			cfg.BatchSize = 64 << 10
			cfg.Codec = codec
			cfg.Transactional = codec == protocol.CodecZstd
			a, _ := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 1}, 1)
			in := mixedRecords()
			for i, r := range in {
				_, err := a.Append(context.Background(), TopicPartition{"t", 0}, Record{Timestamp: r.ts, Key: r.key, Value: r.value, Headers: r.headers, Ref: Position{Record: int64(i)}}, nil, false, t0)
				require.NoError(t, err)
			}
			stamp := func(b *Batch) bool { b.SetProducerState(42, 3, 7); return true }
			b := a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, stamp)[1][0]
			uncompressed := b.EncodedSize()
			records := checkEncoded(t, b, codec)
			if codec != protocol.CodecNone {
				assert.Less(t, b.EncodedSize(), uncompressed, "the 20 KB repetitive value compresses")
			}
			var kb kmsg.RecordBatch
			require.NoError(t, kb.ReadFrom(b.Encoded()))
			assert.Equal(t, cfg.Transactional, kb.Attributes&0x10 != 0)
			assert.Equal(t, in[0].ts, kb.FirstTimestamp)
			assert.Equal(t, in[3].ts, kb.MaxTimestamp)
			require.Len(t, records, len(in))
			for i, r := range in {
				assert.Equal(t, r.ts-in[0].ts, records[i].TimestampDelta)
				assert.Equal(t, r.key, records[i].Key, "record %d key (nil stays null, empty stays empty)", i)
				assert.Equal(t, r.value, records[i].Value, "record %d value", i)
				if len(r.headers) == 0 {
					assert.Empty(t, records[i].Headers)
				} else {
					assert.Equal(t, r.headers, records[i].Headers)
				}
			}
			require.NoError(t, b.Close(nil), "Close is idempotent")
		})
	}
}

func TestSetProducerStateAfterClose(t *testing.T) {
	for _, codec := range []protocol.Codec{protocol.CodecNone, protocol.CodecGzip} {
		t.Run(codec.String(), func(t *testing.T) {
			cfg := testConfig()
			cfg.Codec = codec
			a, _ := newTestAccumulator(t, cfg)
			appendN(t, a, TopicPartition{"t", 0}, 0, 3, 50, t0)
			b := drainAll(a, newTestCluster(map[string]int{"t": 1}, 1), t0)[0]
			assert.False(t, b.HasSequence())
			checkEncoded(t, b, codec)
			records := append([]byte(nil), b.Encoded()[61:]...)

			b.SetProducerState(77, 4, 1234)
			checkEncoded(t, b, codec)
			assert.Equal(t, records, b.Encoded()[61:], "records are not recompressed")
			assert.Equal(t, uint64(77), binary.BigEndian.Uint64(b.Encoded()[43:]))

			b.ResetProducerState()
			assert.False(t, b.HasSequence())
			assert.Equal(t, int64(-1), b.ProducerID())
			checkEncoded(t, b, codec)
		})
	}
}

func TestCloseNeedsCompressor(t *testing.T) {
	cfg := testConfig()
	cfg.Codec = protocol.CodecSnappy
	a, _ := newTestAccumulator(t, cfg)
	appendN(t, a, TopicPartition{"t", 0}, 0, 1, 10, t0)
	b := drainAll(a, newTestCluster(map[string]int{"t": 1}, 1), t0)[0]
	assert.Error(t, b.Close(nil))
	assert.Nil(t, b.Encoded())
	require.NoError(t, b.Close(protocol.NewCompressor()))
}

func TestDoneReportsEveryRecordOnce(t *testing.T) {
	failure := errors.New("NOT_ENOUGH_REPLICAS")
	tests := []struct {
		name          string
		baseOffset    int64
		logAppendTime int64
		err           error
		results       bool
		wantOffset    func(i int) int64
		wantTimestamp func(created int64) int64
	}{
		{"success", 100, -1, nil, true, func(i int) int64 { return 100 + int64(i) }, func(c int64) int64 { return c }},
		{"log append time", 0, 5555, nil, true, func(i int) int64 { return int64(i) }, func(int64) int64 { return 5555 }},
		{"acks=0", -1, -1, nil, true, func(int) int64 { return -1 }, func(c int64) int64 { return c }},
		{"failure", 100, -1, failure, true, func(int) int64 { return -1 }, func(c int64) int64 { return c }},
		{"without record data", 7, -1, nil, false, func(i int) int64 { return 7 + int64(i) }, func(c int64) int64 { return c }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.BatchSize = 64 << 10
			cfg.ResultRecords = tt.results
			a, rec := newTestAccumulator(t, cfg)
			in := mixedRecords()
			for i, r := range in {
				now := t0.Add(time.Duration(i) * time.Millisecond) // read one after the other
				_, err := a.Append(context.Background(), TopicPartition{"t", 0}, Record{Timestamp: r.ts, Key: r.key, Value: r.value, Headers: r.headers, Ref: Position{Source: 2, Record: int64(i)}}, nil, false, now)
				require.NoError(t, err)
			}
			b := drainAll(a, newTestCluster(map[string]int{"t": 1}, 1), t0.Add(time.Second))[0]
			require.NoError(t, b.Close(nil))
			assert.False(t, b.IsDone())
			assert.True(t, b.Done(tt.baseOffset, tt.logAppendTime, tt.err))
			assert.True(t, b.IsDone())
			assert.False(t, b.Done(999, -1, nil), "second Done does nothing")
			got := rec.all()
			require.Len(t, got, len(in))
			for i, r := range got {
				assert.Equal(t, TopicPartition{"t", 0}, r.TopicPartition)
				assert.Equal(t, Position{Source: 2, Record: int64(i)}, r.Position)
				assert.Equal(t, tt.wantOffset(i), r.Offset)
				assert.Equal(t, tt.wantTimestamp(in[i].ts), r.Timestamp)
				assert.Equal(t, in[i].ts, r.CreateTime, "the record's own timestamp, whatever the broker's")
				assert.Equal(t, t0, r.BatchCreatedAt, "the first record's append time")
				assert.Equal(t, tt.err, r.Err)
				if tt.results {
					assert.Equal(t, string(in[i].key), string(r.Key))
					assert.Equal(t, in[i].key == nil, r.Key == nil)
					assert.Equal(t, in[i].value == nil, r.Value == nil)
					assert.Equal(t, len(in[i].headers), len(r.Headers))
				} else {
					assert.Nil(t, r.Key)
					assert.Nil(t, r.Value)
					assert.Nil(t, r.Headers)
				}
			}
			assert.False(t, a.HasIncomplete())
			a.Deallocate(b)
			assert.Equal(t, cfg.BufferMemory, a.pool.unused())
		})
	}
}

func TestDoneRacesOnce(t *testing.T) {
	a, rec := newTestAccumulator(t, testConfig())
	appendN(t, a, TopicPartition{"t", 0}, 0, 4, 10, t0)
	b := drainAll(a, newTestCluster(map[string]int{"t": 1}, 1), t0)[0]
	var wg sync.WaitGroup
	wins := make(chan bool, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wins <- b.Done(int64(i), -1, nil)
		}()
	}
	wg.Wait()
	close(wins)
	n := 0
	for w := range wins {
		if w {
			n++
		}
	}
	assert.Equal(t, 1, n)
	assert.Len(t, rec.all(), 4)
}

func TestDeallocateBeforeDoneIsIgnored(t *testing.T) {
	cfg := testConfig()
	a, rec := newTestAccumulator(t, cfg)
	appendN(t, a, TopicPartition{"t", 0}, 0, 2, 10, t0)
	b := drainAll(a, newTestCluster(map[string]int{"t": 1}, 1), t0)[0]
	a.Deallocate(b)
	require.NoError(t, b.Close(nil), "the buffer is still there")
	require.True(t, b.Done(1, -1, nil))
	assert.Len(t, rec.all(), 2)
	a.Deallocate(b)
	a.Deallocate(b)
	assert.Equal(t, cfg.BufferMemory, a.pool.unused())
	assert.Equal(t, 2, b.RecordCount(), "the count survives Deallocate")
}

func TestNilCallback(t *testing.T) {
	a := New(testConfig(), nil)
	appendN(t, a, TopicPartition{"t", 0}, 0, 2, 10, t0)
	b := drainAll(a, newTestCluster(map[string]int{"t": 1}, 1), t0)[0]
	assert.True(t, b.Done(0, -1, nil))
	a.Deallocate(b)
	assert.False(t, a.HasIncomplete())
}

func ExampleBatch_Done() {
	a := New(Config{Linger: time.Millisecond}, func(r *Result) {
		fmt.Printf("%s/%d@%d %v\n", r.Topic, r.Partition, r.Offset, r.Err)
	})
	ctx := context.Background()
	tp := TopicPartition{Topic: "events", Partition: 2}
	now := time.Unix(0, 0)
	for i := 0; i < 2; i++ {
		if _, err := a.Append(ctx, tp, Record{Timestamp: now.UnixMilli(), Key: nil, Value: []byte("v"), Headers: nil, Ref: Position{Record: int64(i)}}, nil, false, now); err != nil {
			panic(err)
		}
	}
	for _, batches := range a.Drain(exampleCluster{}, map[int32]struct{}{1: {}}, 1<<20, now, nil) {
		for _, b := range batches {
			_ = b.Close(nil)
			b.Done(40, -1, nil)
			a.Deallocate(b)
		}
	}
	// Output:
	// events/2@40 <nil>
	// events/2@41 <nil>
}

type exampleCluster struct{}

func (exampleCluster) LeaderFor(string, int32) (int32, bool) { return 1, true }
func (exampleCluster) PartitionCount(string) int             { return 3 }
