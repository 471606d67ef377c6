package fetch

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// A test partition log: batches appended at increasing offsets, as a
// broker stores them, with the aborted transactions it would list.

var codecs = []protocol.Codec{protocol.CodecNone, protocol.CodecGzip, protocol.CodecSnappy, protocol.CodecLz4, protocol.CodecZstd}

const baseTimestamp = int64(1_700_000_000_000)

type testLog struct {
	tb      testing.TB
	comp    *protocol.Compressor
	next    int64 // the next offset
	data    []byte
	aborted []protocol.FetchResponseAbortedTransaction
	ends    []int64         // the offset of each aborted transaction's marker
	starts  []batchStart    // where each batch begins
	open    map[int64]int64 // producer -> first offset of its open transaction
	// visible are the records a read_committed consumer sees, in order;
	// all are the records a read_uncommitted one sees.
	visible, all []want
	pending      map[int64][]want // records of open transactions
}

// batchStart is the first offset of a batch and its position in data.
type batchStart struct {
	offset int64
	at     int
}

// want is what a consumer must get of one record.
type want struct {
	offset     int64
	key, value string
}

func newTestLog(tb testing.TB) *testLog {
	return &testLog{tb: tb, comp: protocol.NewCompressor(), open: map[int64]int64{}, pending: map[int64][]want{}}
}

// append adds a data batch of n records of producer pid (-1: not
// idempotent), transactional or not.
func (l *testLog) append(pid int64, txn bool, n int, codec protocol.Codec) {
	l.tb.Helper()
	b := &protocol.RecordBatch{BaseOffset: l.next, PartitionLeaderEpoch: 3, Attributes: int16(codec),
		LastOffsetDelta: int32(n - 1), BaseTimestamp: baseTimestamp, MaxTimestamp: baseTimestamp + int64(n),
		ProducerID: pid, ProducerEpoch: 1, BaseSequence: 0}
	if pid < 0 {
		b.ProducerEpoch, b.BaseSequence = -1, -1
	}
	if txn {
		b.Attributes |= protocol.AttrTransactional
		if _, ok := l.open[pid]; !ok {
			l.open[pid] = l.next
		}
	}
	for i := range n {
		off := l.next + int64(i)
		w := want{offset: off, key: fmt.Sprintf("p%d", pid), value: fmt.Sprintf("record at %d", off)}
		b.Records = append(b.Records, protocol.Record{OffsetDelta: int32(i), TimestampDelta: int64(i),
			Key: []byte(w.key), Value: []byte(w.value), Headers: []protocol.Header{{Key: "h", Value: []byte{byte(i)}}}})
		l.all = append(l.all, w)
		if txn {
			l.pending[pid] = append(l.pending[pid], w)
		} else {
			l.visible = append(l.visible, w)
		}
	}
	l.write(b)
}

// end writes pid's commit or abort marker.
func (l *testLog) end(pid int64, commit bool) {
	l.tb.Helper()
	first, ok := l.open[pid]
	require.True(l.tb, ok, "no open transaction of %d", pid)
	delete(l.open, pid)
	typ := ControlAbort
	if commit {
		typ = ControlCommit
		l.visible = append(l.visible, l.pending[pid]...)
	} else {
		l.aborted = append(l.aborted, protocol.FetchResponseAbortedTransaction{ProducerID: pid, FirstOffset: first})
		l.ends = append(l.ends, l.next)
	}
	delete(l.pending, pid)
	key := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, 0), uint16(typ))
	value := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint16(nil, 0), 7)
	l.write(&protocol.RecordBatch{BaseOffset: l.next, PartitionLeaderEpoch: 3,
		Attributes:    protocol.AttrTransactional | protocol.AttrControl,
		BaseTimestamp: baseTimestamp, MaxTimestamp: baseTimestamp, ProducerID: pid, ProducerEpoch: 1, BaseSequence: -1,
		Records: []protocol.Record{{Key: key, Value: value}}})
}

func (l *testLog) write(b *protocol.RecordBatch) {
	l.tb.Helper()
	var err error
	l.starts = append(l.starts, batchStart{offset: l.next, at: len(l.data)})
	l.data, err = b.AppendTo(l.data, l.comp)
	require.NoError(l.tb, err)
	l.next += int64(b.LastOffsetDelta) + 1
}

// partition is the whole log as a fetch response partition.
func (l *testLog) partition() *protocol.FetchResponsePartition {
	return &protocol.FetchResponsePartition{HighWatermark: l.next, LastStableOffset: l.next, LogStartOffset: 0,
		AbortedTransactions: l.aborted, PreferredReadReplica: -1, Records: l.data}
}

// partitionFrom is what a broker returns for a fetch at offset: the data
// from the batch holding it, and the aborted transactions not ended
// before it.
func (l *testLog) partitionFrom(offset int64) *protocol.FetchResponsePartition {
	p := l.partition()
	i := len(l.starts) - 1
	for i > 0 && l.starts[i].offset > offset {
		i--
	}
	if offset >= l.next {
		p.Records = nil
	} else if i >= 0 {
		p.Records = l.data[l.starts[i].at:]
	}
	p.AbortedTransactions = nil
	for j, a := range l.aborted {
		if l.ends[j] >= offset {
			p.AbortedTransactions = append(p.AbortedTransactions, a)
		}
	}
	return p
}

// randomLog writes a log of interleaved transactions of several producers
// (committed and aborted), non-transactional batches and idempotent ones,
// every transaction ended.
func randomLog(tb testing.TB, rng *rand.Rand, steps int) *testLog {
	l := newTestLog(tb)
	for range steps {
		pid := int64(rng.IntN(4)) + 10
		codec := codecs[rng.IntN(len(codecs))]
		switch op := rng.IntN(10); {
		case op < 5:
			l.append(pid, true, 1+rng.IntN(5), codec)
		case op < 7:
			if _, ok := l.open[pid]; ok {
				l.end(pid, rng.IntN(2) == 0)
			}
		case op < 8:
			l.append(-1, false, 1+rng.IntN(3), codec)
		default:
			l.append(99, false, 1+rng.IntN(3), codec) // idempotent, not transactional
		}
	}
	for _, pid := range slices.Sorted(maps.Keys(l.open)) {
		l.end(pid, rng.IntN(2) == 0)
	}
	return l
}

// expected is what a consumer at isolation must read from offset on.
func (l *testLog) expected(isolation int8, from int64) []want {
	recs := l.all
	if isolation == protocol.IsolationReadCommitted {
		recs = slices.SortedFunc(slices.Values(l.visible), func(a, b want) int { return cmp.Compare(a.offset, b.offset) })
	}
	var out []want
	for _, w := range recs {
		if w.offset >= from {
			out = append(out, w)
		}
	}
	return out
}
