package perfcmd

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/internal/histogram"
	"github.com/kproduce/kproduce/pkg/sender"
)

// latencyPrecision is the precision of the run's latency histograms:
// 2^10 buckets per power of two, three significant digits.
const latencyPrecision = 10

// recordRef is a record's Opaque: the batch it was handed over in, the
// generator's record it is (see collector.promise) and its size (key,
// value and headers).
type recordRef struct {
	batch *handOver
	own   *sender.Record
	size  int64
}

// handOver is a batch of records handed to the producer together. It is
// used again once every record of it has its outcome.
type handOver struct {
	at      time.Time // when the batch was handed over
	steady  bool      // its records come after the warm-up
	pending int       // records without an outcome yet; guarded by collector.mu
	// acked counts its records acknowledged in the Sender's current turn,
	// not yet taken off pending (see collector.endTurn); the Sender's
	// goroutine's.
	acked int
	refs  []recordRef
}

// windowWriter prints a window (kafka-producer-perf-test's lines, or JSON
// lines), from the producer's Sender goroutine.
type windowWriter interface {
	window(w windowReport)
}

// collector gathers the outcome of every record: latencies, sizes, the
// windows, per partition, and the failures by reason. It hands out the
// handOvers of the batches (and takes them back).
//
// The producer runs the promise of every acknowledged record on its
// Sender goroutine, one at a time, and AfterPromises after each turn's:
// what counts acknowledged records is that goroutine's alone during the
// run, read once the producer is closed, and needs no lock. The generator
// shares with it the handOvers (guarded by mu, taken once per batch and
// given back once per turn) and the start of the steady state (atomics).
// Failures, rare, are counted under mu, from either goroutine (a record
// refused at once has its promise called by ProduceBatch).
type collector struct {
	interval time.Duration
	topic    string
	out      windowWriter
	errOut   io.Writer // the first failure of each reason is printed there
	now      func() time.Time

	// The Sender goroutine's during the run.
	ackAt time.Time // when the current turn handled its first acknowledgement; zero before it
	total phase
	// steady is the phase after the warm-up; nil until one of its records
	// is acknowledged.
	steady *phase
	parts  []partitionStats
	turn   []*handOver // the handOvers with acknowledgements in the current turn

	// steadyBegan is set once the first record after the warm-up is
	// handed over, steadyAt to its time (since the start).
	steadyBegan atomic.Bool
	steadyAt    atomic.Int64

	mu      sync.Mutex // guards what follows
	free    []*handOver
	reasons []*reasonCount
	failed  int64
	// partFailed counts failed records by partition.
	partFailed map[int32]int64
}

// phase is the statistics of the whole run or of its steady state.
type phase struct {
	steady  bool
	start   time.Time
	records int64
	bytes   int64
	latency *histogram.Histogram // ns
	win     window
}

// window is what a phase counted since its last window line.
type window struct {
	start              time.Time
	records, bytes     int64
	latencySum, maxLat time.Duration
}

// partitionStats is what one partition's acknowledged records did.
type partitionStats struct {
	records, bytes int64
	latency        histogram.Histogram // ns, default precision
}

// reasonCount counts the failures of one reason.
type reasonCount struct {
	reason string
	count  int64
	first  string // the first failure: the partition and the error
}

// newCollector returns the collector of a run whose windows are interval
// long; begin starts it.
func newCollector(interval time.Duration, topic string, out windowWriter, errOut io.Writer) *collector {
	c := &collector{interval: interval, topic: topic, out: out, errOut: errOut, now: time.Now, partFailed: map[int32]int64{}}
	c.total = newPhase(c.now(), false)
	return c
}

// begin starts the run at start, on a topic of partitions partitions,
// before any record is handed over.
func (c *collector) begin(start time.Time, partitions int) {
	c.total = newPhase(start, false)
	c.parts = make([]partitionStats, partitions)
}

func newPhase(start time.Time, steady bool) phase {
	return phase{steady: steady, start: start, latency: histogram.New(latencyPrecision), win: window{start: start}}
}

// handOver returns the handOver of the next batch of n records, handed
// over at at; steady says they come after the warm-up (the first such
// batch starts the steady state, and mutes the total's windows).
func (c *collector) handOver(at time.Time, n int, steady bool) *handOver {
	if steady && !c.steadyBegan.Load() {
		c.steadyAt.Store(int64(at.Sub(c.total.start)))
		c.steadyBegan.Store(true)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var h *handOver
	if k := len(c.free); k > 0 {
		h, c.free = c.free[k-1], c.free[:k-1]
	} else {
		h = &handOver{refs: make([]recordRef, maxBatch)}
		for i := range h.refs {
			h.refs[i].batch = h
		}
	}
	h.at, h.steady, h.pending = at, steady, n
	return h
}

// notHanded gives back the records of h the producer did not take (they
// get no promise).
func (c *collector) notHanded(h *handOver, n int) {
	if n == 0 {
		return
	}
	c.mu.Lock()
	c.settle(h, n)
	c.mu.Unlock()
}

// settle counts n records of h as having their outcome. c.mu must be held.
func (c *collector) settle(h *handOver, n int) {
	h.pending -= n
	if h.pending == 0 {
		c.free = append(c.free, h)
	}
}

// promise is the producer's promise for every record of the run. The
// producer hands back the generator's own record only when it refuses it
// at once (ProduceBatch's contract), on the generator's goroutine; every
// other outcome comes with the producer's record, on its Sender goroutine.
func (c *collector) promise(rec *sender.Record, err error) {
	ref, ok := rec.Opaque.(*recordRef)
	switch {
	case !ok:
	case err == nil && rec != ref.own:
		c.delivered(rec.Partition, ref)
	default:
		c.fail(rec.Partition, ref.batch, err)
	}
}

// delivered counts an acknowledged record, on the Sender's goroutine. The
// Sender completes the records acknowledged by the responses of one turn
// one after the other: they were all acknowledged when the first of them
// was handled, so the clock is read once per turn, not once per record.
func (c *collector) delivered(partition int32, ref *recordRef) {
	if c.ackAt.IsZero() {
		c.ackAt = c.now()
	}
	h := ref.batch
	lat := c.ackAt.Sub(h.at)
	c.total.add(lat, ref.size, c)
	if h.steady {
		if c.steady == nil {
			p := newPhase(c.total.start.Add(time.Duration(c.steadyAt.Load())), true)
			c.steady = &p
		}
		c.steady.add(lat, ref.size, c)
	}
	if partition >= 0 {
		for int(partition) >= len(c.parts) {
			c.parts = append(c.parts, partitionStats{})
		}
		p := &c.parts[partition]
		p.records++
		p.bytes += ref.size
		p.latency.Record(int64(lat))
	}
	if h.acked == 0 {
		c.turn = append(c.turn, h)
	}
	h.acked++
}

// add counts a record of the phase, and prints the window when it is
// over (the total's only until the steady state began, as
// kafka-producer-perf-test's).
func (p *phase) add(lat time.Duration, size int64, c *collector) {
	p.records++
	p.bytes += size
	p.latency.Record(int64(lat))
	w := &p.win
	w.records++
	w.bytes += size
	w.latencySum += lat
	w.maxLat = max(w.maxLat, lat)
	if c.ackAt.Sub(w.start) < c.interval {
		return
	}
	first := p.steady && p.records == w.records
	if p.steady || !c.steadyBegan.Load() {
		c.out.window(w.report(c.ackAt, p.steady, first))
	}
	*w = window{start: c.ackAt}
}

// fail counts a failed record by reason, printing the first failure of
// each reason at once.
func (c *collector) fail(partition int32, h *handOver, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settle(h, 1)
	c.failed++
	if partition >= 0 {
		c.partFailed[partition]++
	}
	reason := report.FailureReason(err)
	for _, rc := range c.reasons {
		if rc.reason == reason {
			rc.count++
			return
		}
	}
	where := c.topic
	if partition >= 0 {
		where = fmt.Sprintf("%s/%d", c.topic, partition)
	}
	rc := &reasonCount{reason: reason, count: 1, first: fmt.Sprintf("%s: %v", where, err)}
	c.reasons = append(c.reasons, rc)
	_, _ = fmt.Fprintf(c.errOut, "kproduce perf: a record failed (%s): %s; the records that fail alike are counted in the summary\n", reason, rc.first)
}

// endTurn ends a turn of the Sender in which records completed: the
// batches of the records it acknowledged are told so, at once.
func (c *collector) endTurn() {
	c.ackAt = time.Time{}
	if len(c.turn) == 0 {
		return
	}
	c.mu.Lock()
	for _, h := range c.turn {
		n := h.acked
		h.acked = 0
		c.settle(h, n)
	}
	c.mu.Unlock()
	clear(c.turn)
	c.turn = c.turn[:0]
}
