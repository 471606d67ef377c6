package fetch

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// ErrNoProgress is returned when a partition's data holds bytes but no
// complete record batch: the broker returns at least one whole batch at
// the fetch offset (Fetch v3+, KIP-74), so nothing can be read there.
var ErrNoProgress = errors.New("no complete record batch in the fetched data")

// DefaultMaxUncompressed bounds the decompressed size of one batch when
// Options.MaxUncompressed is 0.
const DefaultMaxUncompressed = 64 << 20

// Record is a record read from a partition.
type Record struct {
	Offset int64
	// Timestamp is in ms: the producer's CreateTime, or the broker's
	// LogAppendTime when LogAppendTime is true.
	Timestamp     int64
	LogAppendTime bool
	Key           []byte // nil: null
	Value         []byte // nil: null
	Headers       []protocol.Header
	ProducerID    int64 // -1 when not idempotent
	ProducerEpoch int16
	LeaderEpoch   int32 // the partition leader epoch of the batch
	Transactional bool  // the record belongs to a (committed) transaction
}

// Options say how to read one partition's data.
type Options struct {
	// FetchOffset is the offset the fetch asked for: records before it
	// (a batch may begin earlier) are dropped.
	FetchOffset int64
	// Isolation is protocol.IsolationReadCommitted or
	// protocol.IsolationReadUncommitted.
	Isolation int8
	// MaxUncompressed bounds the decompressed size of one batch; 0 means
	// DefaultMaxUncompressed.
	MaxUncompressed int
}

// Partition is what one fetched partition holds for a consumer.
type Partition struct {
	Records []Record
	// NextOffset is where the next fetch starts.
	NextOffset       int64
	HighWatermark    int64
	LastStableOffset int64 // -1 when the broker sent none
	LogStartOffset   int64 // -1 when the broker sent none
}

// Decode reads the records of one partition of a fetch response. A
// partition error is returned as is (a *protocol.Error); a corrupt batch
// is an error naming its offset, after the records before it.
func Decode(p *protocol.FetchResponsePartition, opts Options) (*Partition, error) {
	out := &Partition{NextOffset: opts.FetchOffset, HighWatermark: p.HighWatermark,
		LastStableOffset: p.LastStableOffset, LogStartOffset: p.LogStartOffset}
	if err := protocol.ErrorForCode(p.ErrorCode); err != nil {
		return out, err
	}
	maxUncompressed := opts.MaxUncompressed
	if maxUncompressed <= 0 {
		maxUncompressed = DefaultMaxUncompressed
	}
	d := decoder{opts: opts, out: out}
	if opts.Isolation == protocol.IsolationReadCommitted {
		d.aborted = slices.Clone(p.AbortedTransactions)
		slices.SortStableFunc(d.aborted, func(a, b protocol.FetchResponseAbortedTransaction) int {
			return cmp.Compare(a.FirstOffset, b.FirstOffset)
		})
		d.abortedProducers = make(map[int64]bool)
	}
	data := p.Records
	for len(data) > 0 {
		batch, rest, err := protocol.DecodeRecordBatch(data, maxUncompressed)
		if errors.Is(err, protocol.ErrShortBuffer) {
			if d.batches == 0 {
				return out, fmt.Errorf("fetch offset %d: %w (%d bytes): %w", opts.FetchOffset, ErrNoProgress, len(data), err)
			}
			return out, nil // the last batch, cut short by the size limits
		}
		if err != nil {
			return out, fmt.Errorf("fetch offset %d: batch at byte %d: %w", opts.FetchOffset, len(p.Records)-len(data), err)
		}
		d.batch(batch)
		data = rest
	}
	return out, nil
}

// decoder holds the state of one partition's decoding.
type decoder struct {
	opts             Options
	out              *Partition
	aborted          []protocol.FetchResponseAbortedTransaction // sorted by first offset, not yet reached
	abortedProducers map[int64]bool                             // producers inside an aborted transaction
	batches          int                                        // complete batches read
}

// batch keeps the records of one complete batch that a consumer sees.
func (d *decoder) batch(b *protocol.RecordBatch) {
	d.batches++
	last := b.BaseOffset + int64(b.LastOffsetDelta)
	if next := last + 1; next > d.out.NextOffset {
		d.out.NextOffset = next
	}
	control := b.Attributes&protocol.AttrControl != 0
	transactional := b.Attributes&protocol.AttrTransactional != 0
	if d.abortedProducers != nil && b.ProducerID >= 0 {
		for len(d.aborted) > 0 && d.aborted[0].FirstOffset <= last {
			d.abortedProducers[d.aborted[0].ProducerID] = true
			d.aborted = d.aborted[1:]
		}
		switch {
		case control && isAbortMarker(b):
			delete(d.abortedProducers, b.ProducerID)
		case transactional && d.abortedProducers[b.ProducerID]:
			return // a batch of an aborted transaction
		}
	}
	if control {
		return
	}
	logAppend := b.Attributes&protocol.AttrTimestampLogAppend != 0
	for i := range b.Records {
		r := &b.Records[i]
		off := b.BaseOffset + int64(r.OffsetDelta)
		if off < d.opts.FetchOffset {
			continue
		}
		ts := b.BaseTimestamp + r.TimestampDelta
		if logAppend {
			ts = b.MaxTimestamp
		}
		d.out.Records = append(d.out.Records, Record{Offset: off, Timestamp: ts, LogAppendTime: logAppend,
			Key: r.Key, Value: r.Value, Headers: r.Headers, ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch,
			LeaderEpoch: b.PartitionLeaderEpoch, Transactional: transactional})
	}
}

// Control record types (the second int16 of a control record's key).
const (
	ControlAbort  int16 = 0
	ControlCommit int16 = 1
)

// isAbortMarker reports whether a control batch is an abort marker: its
// first record's key is (version int16, type int16) with type 0.
func isAbortMarker(b *protocol.RecordBatch) bool {
	t, ok := ControlType(b)
	return ok && t == ControlAbort
}

// ControlType is the type of a control batch's record: ControlAbort or
// ControlCommit for transaction markers (other types exist for KRaft's own
// logs).
// ok is false for a batch that is not a control batch or whose record key
// is malformed.
func ControlType(b *protocol.RecordBatch) (typ int16, ok bool) {
	if b.Attributes&protocol.AttrControl == 0 || len(b.Records) == 0 || len(b.Records[0].Key) < 4 {
		return 0, false
	}
	return int16(binary.BigEndian.Uint16(b.Records[0].Key[2:])), true
}
