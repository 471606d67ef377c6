package perfcmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/internal/histogram"
	"github.com/kproduce/kproduce/pkg/sender"
)

// latencyPrecision is the precision of the run's latency histograms:
// 2^10 buckets per power of two, three significant digits.
const latencyPrecision = 10

// recordRef is a record's Opaque: the batch it was handed over in and its
// size (key, value and headers).
type recordRef struct {
	batch *handOver
	size  int64
}

// handOver is a batch of records handed to the producer together. It is
// used again once every record of it has its outcome.
type handOver struct {
	at      time.Time // when the batch was handed over
	steady  bool      // its records come after the warm-up
	pending int       // records without an outcome yet; guarded by collector.mu
	refs    []recordRef
}

// windowWriter prints a window (kafka-producer-perf-test's lines, or JSON
// lines), called with the collector's lock held.
type windowWriter interface {
	window(w windowReport)
}

// collector gathers the outcome of every record: latencies, sizes, the
// windows, per partition, and the failures by reason. It hands out the
// handOvers of the batches (and takes them back).
type collector struct {
	interval time.Duration
	topic    string
	out      windowWriter
	errOut   io.Writer // the first failure of each reason is printed there
	now      func() time.Time

	mu sync.Mutex // guards everything below
	// ackAt is when the Sender's current turn handled its first
	// acknowledgement; zero before it (see endTurn).
	ackAt   time.Time
	total   phase
	steady  *phase // nil until the first record after the warm-up is handed over
	parts   []partitionStats
	reasons []*reasonCount
	failed  int64
	free    []*handOver
}

// phase is the statistics of the whole run or of its steady state.
type phase struct {
	steady  bool
	start   time.Time
	records int64
	bytes   int64
	latency *histogram.Histogram // ns
	win     window
	quiet   bool // its windows are not printed (the total's, once the steady state began)
}

// window is what a phase counted since its last window line.
type window struct {
	start              time.Time
	records, bytes     int64
	latencySum, maxLat time.Duration
}

// partitionStats is what one partition's records did.
type partitionStats struct {
	records, failed, bytes int64
	latency                histogram.Histogram // ns, default precision
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
	c := &collector{interval: interval, topic: topic, out: out, errOut: errOut, now: time.Now}
	c.total = newPhase(c.now(), false)
	return c
}

// begin starts the run at start, on a topic of partitions partitions.
func (c *collector) begin(start time.Time, partitions int) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
	if steady && c.steady == nil {
		p := newPhase(at, true)
		c.steady = &p
		c.total.quiet = true
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

// promise is the producer's promise for every record of the run.
func (c *collector) promise(rec *sender.Record, err error) {
	ref, ok := rec.Opaque.(*recordRef)
	if !ok {
		return
	}
	c.mu.Lock()
	if err == nil {
		c.delivered(rec.Partition, ref)
	} else {
		c.fail(rec.Partition, err)
	}
	c.settle(ref.batch, 1)
	c.mu.Unlock()
}

// delivered counts an acknowledged record. The Sender completes the
// records acknowledged by the responses of one turn one after the other:
// they were all acknowledged when the first of them was handled, so the
// clock is read once per turn, not once per record. c.mu must be held.
func (c *collector) delivered(partition int32, ref *recordRef) {
	if c.ackAt.IsZero() {
		c.ackAt = c.now()
	}
	lat := c.ackAt.Sub(ref.batch.at)
	c.total.add(lat, ref.size, c)
	if ref.batch.steady && c.steady != nil {
		c.steady.add(lat, ref.size, c)
	}
	if p := c.partition(partition); p != nil {
		p.records++
		p.bytes += ref.size
		p.latency.Record(int64(lat))
	}
}

// add counts a record of the phase, and prints the window when it is
// over. c.mu must be held.
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
	if !p.quiet {
		c.out.window(w.report(c.ackAt, p.steady, first))
	}
	*w = window{start: c.ackAt}
}

// fail counts a failed record by reason, printing the first failure of
// each reason at once. c.mu must be held.
func (c *collector) fail(partition int32, err error) {
	c.failed++
	if p := c.partition(partition); p != nil {
		p.failed++
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

// partition returns the statistics of partition p, nil for a record that
// never had one. c.mu must be held.
func (c *collector) partition(p int32) *partitionStats {
	if p < 0 {
		return nil
	}
	for int(p) >= len(c.parts) {
		c.parts = append(c.parts, partitionStats{})
	}
	return &c.parts[p]
}

// endTurn ends a turn of the Sender in which records completed.
func (c *collector) endTurn() {
	c.mu.Lock()
	c.ackAt = time.Time{}
	c.mu.Unlock()
}
