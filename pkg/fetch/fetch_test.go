package fetch

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/pkg/protocol"
)

func decode(t *testing.T, p *protocol.FetchResponsePartition, from int64, isolation int8) *Partition {
	t.Helper()
	got, err := Decode(p, Options{FetchOffset: from, Isolation: isolation})
	require.NoError(t, err)
	return got
}

func assertRecords(t *testing.T, want []want, got []Record) {
	t.Helper()
	require.Len(t, got, len(want))
	for i, w := range want {
		assert.Equal(t, w.offset, got[i].Offset, "record %d", i)
		assert.Equal(t, w.key, string(got[i].Key), "record %d", i)
		assert.Equal(t, w.value, string(got[i].Value), "record %d", i)
	}
}

func TestReadCommittedDropsAbortedTransactions(t *testing.T) {
	for _, codec := range codecs {
		t.Run(codec.String(), func(t *testing.T) {
			l := newTestLog(t)
			l.append(1, true, 3, codec)   // committed
			l.append(2, true, 2, codec)   // aborted, interleaved with 1
			l.append(-1, false, 2, codec) // plain records in between
			l.append(2, true, 1, codec)
			l.end(2, false)
			l.append(1, true, 2, codec)
			l.end(1, true)
			l.append(2, true, 4, codec) // a later transaction of the aborting producer, committed
			l.end(2, true)
			require.Len(t, l.aborted, 1)

			got := decode(t, l.partition(), 0, protocol.IsolationReadCommitted)
			assertRecords(t, l.expected(protocol.IsolationReadCommitted, 0), got.Records)
			assert.Equal(t, l.next, got.NextOffset, "control and aborted batches are passed too")
			for _, r := range got.Records {
				if string(r.Key) == "p2" {
					assert.Greater(t, r.Offset, int64(10), "no record of the aborted transaction")
				}
			}

			all := decode(t, l.partition(), 0, protocol.IsolationReadUncommitted)
			assertRecords(t, l.expected(protocol.IsolationReadUncommitted, 0), all.Records)
			assert.Len(t, all.Records, 14, "read_uncommitted sees every data record, no marker")
		})
	}
}

func TestFetchOffsetInsideABatch(t *testing.T) {
	l := newTestLog(t)
	l.append(-1, false, 10, protocol.CodecLz4)
	l.append(-1, false, 10, protocol.CodecNone)
	got := decode(t, l.partition(), 7, protocol.IsolationReadCommitted)
	assertRecords(t, l.expected(protocol.IsolationReadUncommitted, 7), got.Records)
	assert.Equal(t, int64(7), got.Records[0].Offset)
	assert.Equal(t, int64(20), got.NextOffset)
}

func TestRecordFields(t *testing.T) {
	l := newTestLog(t)
	l.append(5, true, 2, protocol.CodecZstd)
	l.end(5, true)
	got := decode(t, l.partition(), 0, protocol.IsolationReadCommitted)
	require.Len(t, got.Records, 2)
	r := got.Records[1]
	assert.Equal(t, baseTimestamp+1, r.Timestamp)
	assert.False(t, r.LogAppendTime)
	assert.Equal(t, []protocol.Header{{Key: "h", Value: []byte{1}}}, r.Headers)
	assert.Equal(t, int64(5), r.ProducerID)
	assert.Equal(t, int16(1), r.ProducerEpoch)
	assert.Equal(t, int32(3), r.LeaderEpoch)
	assert.True(t, r.Transactional)
	assert.Equal(t, l.next, got.HighWatermark)
	assert.Equal(t, int64(0), got.LogStartOffset)

	// LogAppendTime: every record has the batch's max timestamp.
	b := &protocol.RecordBatch{Attributes: protocol.AttrTimestampLogAppend, LastOffsetDelta: 1,
		BaseTimestamp: 10, MaxTimestamp: 99, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []protocol.Record{{Value: []byte("a")}, {OffsetDelta: 1, TimestampDelta: 3, Value: nil, Key: []byte{}}}}
	data, err := b.AppendTo(nil, nil)
	require.NoError(t, err)
	got = decode(t, &protocol.FetchResponsePartition{Records: data}, 0, protocol.IsolationReadUncommitted)
	require.Len(t, got.Records, 2)
	for _, r := range got.Records {
		assert.Equal(t, int64(99), r.Timestamp)
		assert.True(t, r.LogAppendTime)
	}
	assert.Nil(t, got.Records[1].Value, "a null value stays null")
	assert.NotNil(t, got.Records[1].Key, "an empty key is not null")
}

func TestTruncatedLastBatchIsLeftForTheNextFetch(t *testing.T) {
	l := newTestLog(t)
	l.append(-1, false, 3, protocol.CodecNone)
	first := len(l.data)
	l.append(-1, false, 3, protocol.CodecGzip)
	for cut := first; cut < len(l.data); cut += 7 {
		p := l.partition()
		p.Records = p.Records[:cut]
		got := decode(t, p, 0, protocol.IsolationReadCommitted)
		assert.Len(t, got.Records, 3, "cut at %d", cut)
		assert.Equal(t, int64(3), got.NextOffset, "cut at %d", cut)
	}
}

func TestNoCompleteBatchIsAnError(t *testing.T) {
	l := newTestLog(t)
	l.append(-1, false, 3, protocol.CodecNone)
	for _, cut := range []int{1, 12, protocol.RecordBatchHeaderSize, len(l.data) - 1} {
		p := l.partition()
		p.Records = p.Records[:cut]
		got, err := Decode(p, Options{FetchOffset: 0})
		assert.ErrorIs(t, err, ErrNoProgress, "cut at %d", cut)
		assert.Equal(t, int64(0), got.NextOffset)
	}
}

func TestCorruptBatch(t *testing.T) {
	l := newTestLog(t)
	l.append(-1, false, 3, protocol.CodecNone)
	good := len(l.data)
	l.append(-1, false, 3, protocol.CodecNone)
	p := l.partition()
	p.Records[len(p.Records)-1] ^= 0xff // breaks the second batch's CRC
	got, err := Decode(p, Options{FetchOffset: 0})
	require.ErrorIs(t, err, protocol.ErrCorruptBatch)
	assert.Contains(t, err.Error(), fmt.Sprintf("batch at byte %d", good))
	assert.Len(t, got.Records, 3, "the records before it")
	assert.Equal(t, int64(3), got.NextOffset)
}

func TestPartitionError(t *testing.T) {
	got, err := Decode(&protocol.FetchResponsePartition{ErrorCode: 6, HighWatermark: -1}, Options{FetchOffset: 42})
	assert.ErrorIs(t, err, protocol.ErrNotLeaderOrFollower)
	assert.Equal(t, int64(42), got.NextOffset)
}

func TestDecompressionLimit(t *testing.T) {
	l := newTestLog(t)
	l.append(-1, false, 50, protocol.CodecGzip)
	_, err := Decode(l.partition(), Options{MaxUncompressed: 100})
	assert.ErrorIs(t, err, protocol.ErrDecompressedTooLarge)
}

func TestControlType(t *testing.T) {
	l := newTestLog(t)
	l.append(1, true, 1, protocol.CodecNone)
	start := len(l.data)
	l.end(1, true)
	b, _, err := protocol.DecodeRecordBatch(l.data[start:], 1<<20)
	require.NoError(t, err)
	typ, ok := ControlType(b)
	assert.True(t, ok)
	assert.Equal(t, ControlCommit, typ)
	b.Records[0].Key = []byte{0}
	_, ok = ControlType(b)
	assert.False(t, ok, "a malformed key")
	b.Attributes = 0
	_, ok = ControlType(b)
	assert.False(t, ok, "not a control batch")
}

// TestMatchesFranzGo compares Decode with franz-go's fetch processing on
// random logs of interleaved, committed and aborted transactions, at both
// isolation levels and from random offsets.
func TestMatchesFranzGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		l := randomLog(t, rng, 5+rng.IntN(40))
		from := rng.Int64N(l.next + 1)
		for _, iso := range []int8{protocol.IsolationReadUncommitted, protocol.IsolationReadCommitted} {
			p := l.partitionFrom(from)
			got := decode(t, p, from, iso)
			assertRecords(t, l.expected(iso, from), got.Records)
			kp := &kmsg.FetchResponseTopicPartition{HighWatermark: p.HighWatermark, LastStableOffset: p.LastStableOffset,
				RecordBatches: p.Records}
			for _, a := range p.AbortedTransactions {
				kp.AbortedTransactions = append(kp.AbortedTransactions, kmsg.FetchResponseTopicPartitionAbortedTransaction{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset})
			}
			level := kgo.ReadUncommitted()
			if iso == protocol.IsolationReadCommitted {
				level = kgo.ReadCommitted()
			}
			fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Offset: from, IsolationLevel: level}, kp, kgo.DefaultDecompressor(), nil)
			require.NoError(t, fp.Err)
			require.Len(t, got.Records, len(fp.Records), "log %d from %d at isolation %d", i, from, iso)
			for j, r := range fp.Records {
				assert.Equal(t, r.Offset, got.Records[j].Offset)
				assert.Equal(t, r.Key, got.Records[j].Key)
				assert.Equal(t, r.Value, got.Records[j].Value)
				assert.Equal(t, r.Timestamp.UnixMilli(), got.Records[j].Timestamp)
			}
			assert.Equal(t, next, got.NextOffset)
		}
	}
}

func FuzzDecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		l := randomLog(f, rng, 12)
		f.Add(l.data, encodeAborted(l.aborted), int64(0), true)
	}
	f.Fuzz(func(t *testing.T, data, aborted []byte, from int64, committed bool) {
		iso := protocol.IsolationReadUncommitted
		if committed {
			iso = protocol.IsolationReadCommitted
		}
		p := &protocol.FetchResponsePartition{Records: data, AbortedTransactions: decodeAborted(aborted)}
		got, err := Decode(p, Options{FetchOffset: from, Isolation: iso, MaxUncompressed: 1 << 20})
		require.NotNil(t, got)
		require.GreaterOrEqual(t, got.NextOffset, from)
		prev := int64(-1 << 63)
		for _, r := range got.Records {
			require.GreaterOrEqual(t, r.Offset, from)
			require.Greater(t, r.Offset, prev)
			require.Less(t, r.Offset, got.NextOffset)
			prev = r.Offset
		}
		if err == nil && len(data) > 0 {
			require.Greater(t, got.NextOffset, int64(-1<<63))
		}
	})
}

func encodeAborted(a []protocol.FetchResponseAbortedTransaction) []byte {
	var b []byte
	for _, x := range a {
		b = binary.BigEndian.AppendUint64(b, uint64(x.ProducerID))
		b = binary.BigEndian.AppendUint64(b, uint64(x.FirstOffset))
	}
	return b
}

func decodeAborted(b []byte) []protocol.FetchResponseAbortedTransaction {
	var out []protocol.FetchResponseAbortedTransaction
	for ; len(b) >= 16; b = b[16:] {
		out = append(out, protocol.FetchResponseAbortedTransaction{ProducerID: int64(binary.BigEndian.Uint64(b)),
			FirstOffset: int64(binary.BigEndian.Uint64(b[8:]))})
	}
	return out
}
