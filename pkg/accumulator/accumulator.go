package accumulator

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// freeCompletionsShare bounds the recycled completion lists kept for new
// batches: their capacity, in bytes, stays within the buffer memory
// divided by it. Live lists are bounded by the buffer memory (a record
// takes at least 7 buffer bytes and up to about 41 list bytes: 16 for its
// Ref, 24 when it starts an append call's run, 1 for its timestamp), so
// the free ones, which were live, are too; the bound keeps them to what a
// steady flow reuses (a 1 MiB batch of 100-byte records needs about 170
// KiB; the thousands of small batches of a thousand partitions, a record
// or two per append call, about 1 KiB each) rather than the peak of a
// burst.
const freeCompletionsShare = 2

// Accumulator queues records into per-partition batches (Kafka's
// RecordAccumulator). Appenders and the sender goroutine share it; one
// mutex guards the deques and the batches in them.
type Accumulator struct {
	cfg   Config   // immutable
	cb    Callback // immutable
	limit int      // immutable: the size at which a batch is full: min(BatchSize, BufferMemory), less the codec's overhead
	// fitLimit is immutable: the batch size up to which a record appended
	// to an open batch passes every size check of Append (see fitLimit).
	fitLimit int
	pool     *bufferPool      // has its own lock; taken after mu, never before
	workers  *compressWorkers // nil when Close compresses (no codec, no workers); its queue is guarded by mu
	wakeup   chan struct{}    // capacity 1; non-blocking sends
	// doneScratch holds *doneScratch for reporting batches (Batch.Done).
	doneScratch sync.Pool
	// delivered and failed count the records of the batches done.
	delivered, failed atomic.Int64

	// waitHook, when set before any Append, is called whenever an appender
	// starts waiting for buffer memory. Tests use it to know a goroutine is
	// blocked without sleeping.
	waitHook func()

	mu     sync.Mutex
	deques map[TopicPartition]*deque // guarded by mu; never removed
	// lastTopic and lastDeques (by partition; nil where not looked up yet)
	// cache the deques of the topic appended to last: with many
	// partitions every append call is of another partition, and a slice
	// index costs less than hashing the map's key. Guarded by mu.
	lastTopic   string
	lastDeques  []*deque
	order       []*deque                    // guarded by mu: every deque, by topic then partition
	closed      bool                        // guarded by mu
	flushes     int                         // guarded by mu: flushes in progress
	flushTarget uint64                      // guarded by mu: the next batch id when the latest flush began
	flushDone   chan struct{}               // guarded by mu: closed (and cleared) when a batch completes while a flush waits
	nextID      uint64                      // guarded by mu: the next batch's id
	incomplete  incompleteList              // guarded by mu: batches not yet done, oldest first
	muted       map[TopicPartition]struct{} // guarded by mu: partitions Ready and Drain skip
	drainIndex  map[int32]int               // guarded by mu: per node, where the next Drain starts
	drainParts  map[int32][]*deque          // guarded by mu: Drain's scratch
	freeComps   []completions               // guarded by mu: recycled completion lists
	retired     []*Batch                    // guarded by mu: deallocated batches, until RecycleBatches
	freeBatches []*Batch                    // guarded by mu: Batch structs to reuse (see RecycleBatches)
	freeBytes   int                         // guarded by mu: the capacity of freeComps' lists, in bytes
	calls       uint64                      // guarded by mu: append calls so far (see completions.lastCall)
	nextExpiry  time.Time                   // guarded by mu: earliest delivery deadline seen by ExpiredBatches
	lastFill    int                         // guarded by mu: the fill of the batch last closed for appends (see deque.fill)
}

// New returns an accumulator that reports every record's outcome to cb
// (which may be nil). Zero BatchSize, BufferMemory, DeliveryTimeout and
// RetryBackoffMax take their defaults; zero Linger and RetryBackoff are
// taken as given.
func New(cfg Config, cb Callback) *Accumulator {
	cfg = cfg.withDefaults()
	a := &Accumulator{
		cfg:        cfg,
		cb:         cb,
		limit:      batchLimit(cfg),
		fitLimit:   fitLimit(cfg),
		wakeup:     make(chan struct{}, 1),
		deques:     make(map[TopicPartition]*deque),
		muted:      make(map[TopicPartition]struct{}),
		drainIndex: make(map[int32]int),
		drainParts: make(map[int32][]*deque),
	}
	a.doneScratch.New = newDoneScratch
	a.pool = newBufferPool(cfg.BufferMemory, a.limit, a.onMemoryWait)
	if a.workers = newCompressWorkers(&cfg); a.workers != nil {
		a.workers.compress = a.compressBatch
	}
	if cfg.Codec != protocol.CodecNone && cfg.ResultRecords {
		// Room for the compressed copy of a full batch, which the records
		// cannot make room for (see compressRecords), so that compressing
		// rarely overdraws the budget.
		a.pool.reserve = int64(a.pool.sizeFor(a.limit + protocol.CompressionOverhead(cfg.Codec, a.limit)))
	}
	return a
}

// Wakeup returns a channel that receives (without blocking the sender of
// the signal; capacity 1) whenever an Append creates or fills a batch, an
// appender starts waiting for memory, a flush begins or the accumulator
// closes, so the sender can cut its poll short.
func (a *Accumulator) Wakeup() <-chan struct{} { return a.wakeup }

func (a *Accumulator) signal() {
	if a.cfg.Wakeup != nil {
		a.cfg.Wakeup()
	}
	select {
	case a.wakeup <- struct{}{}:
	default:
	}
}

// onMemoryWait runs when an appender blocks on the budget: the sender should
// look again, since every batch is now sendable.
func (a *Accumulator) onMemoryWait() {
	a.signal()
	if a.waitHook != nil {
		a.waitHook()
	}
}

// dequeLocked returns tp's deque, creating it. a.mu must be held.
func (a *Accumulator) dequeLocked(tp TopicPartition) *deque {
	if tp.Topic != a.lastTopic {
		a.lastTopic = tp.Topic
		clear(a.lastDeques)
		a.lastDeques = a.lastDeques[:0]
	}
	p := int(tp.Partition)
	if p < len(a.lastDeques) && a.lastDeques[p] != nil {
		return a.lastDeques[p]
	}
	d, ok := a.deques[tp]
	if !ok {
		d = a.newDequeLocked(tp)
	}
	if p < 1<<16 { // more partitions than Kafka allows a topic are left to the map
		for len(a.lastDeques) <= p {
			a.lastDeques = append(a.lastDeques, nil)
		}
		a.lastDeques[p] = d
	}
	return d
}

// newDequeLocked creates tp's deque. a.mu must be held.
func (a *Accumulator) newDequeLocked(tp TopicPartition) *deque {
	d := &deque{tp: tp, fill: a.lastFill}
	a.deques[tp] = d
	i, _ := slices.BinarySearchFunc(a.order, tp, func(x *deque, tp TopicPartition) int {
		return cmp.Or(cmp.Compare(x.tp.Topic, tp.Topic), cmp.Compare(x.tp.Partition, tp.Partition))
	})
	a.order = slices.Insert(a.order, i, d)
	return d
}

// newBatchLocked creates a batch for tp around buf (empty, with header
// room) whose first record has the given timestamp. a.mu must be held.
func (a *Accumulator) newBatchLocked(tp TopicPartition, buf []byte, timestamp int64, createdAt time.Time, id uint64) *Batch {
	b := a.batchStructLocked()
	*b = Batch{
		acc:           a,
		tp:            tp,
		createdAt:     createdAt,
		id:            id,
		buf:           buf[:headerRoom],
		baseTimestamp: timestamp,
		maxTimestamp:  timestamp,
		lastAttemptAt: createdAt,
		producerID:    -1,
		producerEpoch: -1,
		baseSequence:  -1,
	}
	if n := len(a.freeComps); n > 0 {
		b.comps = a.freeComps[n-1]
		a.freeComps[n-1] = completions{}
		a.freeComps = a.freeComps[:n-1]
		a.freeBytes -= b.comps.capBytes()
	}
	a.incomplete.pushBack(b)
	return b
}

// completed removes a batch that reached its outcome from the incomplete
// set and wakes flushes waiting for it.
func (a *Accumulator) completed(b *Batch) {
	a.mu.Lock()
	a.incomplete.remove(b)
	if a.flushDone != nil {
		close(a.flushDone)
		a.flushDone = nil
	}
	a.mu.Unlock()
}

// Deallocate returns the batch's memory (its buffers and completion list) to
// the pool. Call it once after Done, when the batch's encoded bytes are no
// longer referenced; Done never calls it. Before Done it does nothing, and
// a second call does nothing. SplitAndReenqueue deallocates the batch it
// replaces itself. A batch a compression worker is reading (a batch that
// expired, or was aborted, while it was compressed) is released by that
// worker when it is done with it.
func (a *Accumulator) Deallocate(b *Batch) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b.deallocated || !b.IsDone() {
		return
	}
	b.deallocated = true
	a.incomplete.remove(b)
	switch b.compress {
	case compressRunning:
		b.releasePending = true
		return
	case compressQueued:
		a.workers.dequeueLocked(b)
	}
	a.releaseLocked(b)
}

// releaseLocked gives a deallocated batch's buffers and completion list
// back. a.mu must be held (the pool's lock is taken after it).
func (a *Accumulator) releaseLocked(b *Batch) {
	if n := b.comps.capBytes(); n > 0 && int64(a.freeBytes+n) <= a.cfg.BufferMemory/freeCompletionsShare {
		b.comps.reset()
		a.freeComps = append(a.freeComps, b.comps)
		a.freeBytes += n
	}
	buf, compressed := b.buf, b.compressed
	b.buf, b.compressed, b.encoded, b.comps = nil, nil, nil, completions{}
	b.releasePending = false
	a.pool.release(buf)
	a.pool.release(compressed)
	a.retireLocked(b)
}

// fitLimit bounds the size of an open batch after a record is appended, so
// that a record that fits passes Append's size checks: within the batch
// limit, the maximum request size and the record size limit (a record's
// lone batch is never larger than the batch it joins; a quarter of the
// record size limit covers checkSize's estimate of header bytes).
func fitLimit(cfg Config) int {
	n := min(batchLimit(cfg), maxRecordBytes/4)
	if cfg.MaxRequestSize > 0 {
		n = min(n, cfg.MaxRequestSize)
	}
	return n
}

// batchLimit is the size at which a batch is full: the batch size (within
// the buffer memory) less the room its compressed copy may need beyond it
// when the records do not compress, so that the copy fits a buffer of the
// same size class.
func batchLimit(cfg Config) int {
	size := int(min(int64(cfg.BatchSize), cfg.BufferMemory))
	return max(size-protocol.CompressionOverhead(cfg.Codec, size), protocol.RecordBatchHeaderSize+1)
}
