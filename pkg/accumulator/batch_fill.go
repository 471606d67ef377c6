package accumulator

import "github.com/kproduce/kproduce/pkg/protocol"

// BatchFill follows how full each partition's open batch would be if
// records were appended and nothing were ever sent: Append's size checks
// and batch rules applied to sizes only, with no records, memory budget
// or I/O. A dry run uses it to place records exactly where a producer
// whose batches are sent only when full would place them: it answers
// AbortForNewBatch where Append would, so a sticky partitioner switches at
// the same records. It is not safe for concurrent use.
type BatchFill struct {
	cfg   Config
	limit int // the size at which a batch is full, as the Accumulator's
	open  map[TopicPartition]*fillBatch
}

// fillBatch is the size of one partition's open batch.
type fillBatch struct {
	size          int   // encoded bytes so far, header room included
	count         int   // records
	baseTimestamp int64 // the first record's timestamp
	closed        bool  // takes no more records (a record did not fit, or an oversized one travels alone)
	batches       int   // batches made for the partition so far, this one included (none is ever sent)
}

// NewBatchFill returns a BatchFill for the batches an Accumulator with cfg
// would make (BatchSize, BufferMemory, Codec and MaxRequestSize matter;
// zero values take New's defaults).
func NewBatchFill(cfg Config) *BatchFill {
	cfg = cfg.withDefaults()
	return &BatchFill{cfg: cfg, limit: batchLimit(cfg), open: make(map[TopicPartition]*fillBatch)}
}

// Append does what Accumulator.Append would do with the record's size:
// the same errors for a record that cannot be appended (ErrRecordTooLarge,
// ErrInvalidPartition), the same result otherwise. It never blocks.
func (f *BatchFill) Append(tp TopicPartition, timestamp int64, key, value []byte,
	headers []protocol.Header, abortOnNewBatch bool) (AppendResult, error) {
	own, err := checkRecord(&f.cfg, tp, key, value, headers)
	if err != nil {
		return AppendResult{}, err
	}
	b := f.open[tp]
	if b != nil && !b.closed {
		need := b.size + protocol.RecordSize(int32(b.count), timestamp-b.baseTimestamp, key, value, headers)
		if need <= f.limit {
			b.size = need
			b.count++
			return AppendResult{BatchIsFull: b.batches > 1 || b.size >= f.limit}, nil
		}
		b.closed = true
	}
	if abortOnNewBatch {
		return AppendResult{AbortForNewBatch: true}, nil
	}
	if b == nil {
		b = new(fillBatch)
		f.open[tp] = b
	}
	*b = fillBatch{size: own, count: 1, baseTimestamp: timestamp, closed: own > f.limit, batches: b.batches + 1}
	return AppendResult{NewBatchCreated: true, BatchIsFull: b.batches > 1 || b.closed || b.size >= f.limit}, nil
}
