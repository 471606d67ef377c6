package producecmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/histogram"
	"github.com/kproduce/kproduce/pkg/sender"
)

// runStats gathers what --stats and --stats-json report that the reporter
// and the producer do not count themselves: the record bytes handed to the
// producer and the delivery latencies.
type runStats struct {
	start time.Time
	// recordBytes counts the key and value bytes of the records the
	// producer accepted. The reading goroutine adds to it per record: it
	// has a cache line of its own, away from what the Sender goroutine
	// writes per record (sharing one costs more than all the rest).
	_           [64]byte
	recordBytes atomic.Int64
	_           [64]byte

	mu      sync.Mutex          // guards latency and ackAt
	latency histogram.Histogram // ns from a record's read time to its acknowledgement
	// ackAt is when the Sender's current turn handled its first
	// acknowledgement; zero before it (see endTurn).
	ackAt time.Time
}

// newRunStats returns the stats of a run started at start, or nil when
// neither --stats nor --stats-json asks for them (nothing is then counted).
func newRunStats(opts *config.Options, start time.Time) *runStats {
	if !opts.Stats && opts.StatsJSON == "" {
		return nil
	}
	return &runStats{start: start}
}

// sentBytes adds n bytes of keys and values handed to the producer (less,
// for records it refused).
func (s *runStats) sentBytes(n int64) { s.recordBytes.Add(n) }

// delivered records the latency of a delivered record, from when it was
// read (its Origin's chunk). The Sender completes the records
// acknowledged by the responses of one turn one after the other: they were
// all acknowledged when the first of them was handled, so the clock is read
// once per turn, not once per record.
func (s *runStats) delivered(rec *sender.Record) {
	o, ok := rec.Opaque.(*input.Origin)
	if !ok || o == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ackAt.IsZero() {
		s.ackAt = time.Now()
	}
	s.latency.Record(int64(s.ackAt.Sub(o.ReadAt)))
}

// endTurn ends a turn of the Sender in which records completed.
func (s *runStats) endTurn() {
	s.mu.Lock()
	s.ackAt = time.Time{}
	s.mu.Unlock()
}

// StatsSummary is the summary of a run, as --stats-json writes it. The
// field names are stable.
type StatsSummary struct {
	RecordsDelivered int64        `json:"records_delivered"`
	RecordsFailed    int64        `json:"records_failed"`
	RecordsSkipped   int64        `json:"records_skipped"` // committed by earlier runs (--resume), not produced again
	RecordBytes      int64        `json:"record_bytes"`
	WireBytes        int64        `json:"wire_bytes"`
	WallTimeMs       float64      `json:"wall_time_ms"`
	RecordsPerSec    float64      `json:"records_per_sec"`
	MBPerSec         float64      `json:"mb_per_sec"`
	ProduceRequests  int64        `json:"produce_requests"`
	Batches          int64        `json:"batches"`
	RecordsPerBatch  float64      `json:"records_per_batch"`
	Retries          int64        `json:"retries"`
	BatchSplits      int64        `json:"batch_splits"`
	LatencyMs        StatsLatency `json:"latency_ms"`

	// Reauthentications counts the SASL re-authentications (KIP-368);
	// left out of the JSON when there were none.
	Reauthentications int64 `json:"reauthentications,omitempty"`
}

// StatsLatency holds delivery latency percentiles in milliseconds; null
// when no record was delivered.
type StatsLatency struct {
	P50 *float64 `json:"p50"`
	P99 *float64 `json:"p99"`
	Max *float64 `json:"max"`
}

// summary computes the summary at end from the reporter's counts and the
// producer's.
func (s *runStats) summary(delivered, failed int64, ps sender.Stats, end time.Time) StatsSummary {
	wall := end.Sub(s.start)
	sum := StatsSummary{
		RecordsDelivered: delivered,
		RecordsFailed:    failed,
		RecordBytes:      s.recordBytes.Load(),
		WireBytes:        ps.WireBytes,
		WallTimeMs:       round3(float64(wall) / float64(time.Millisecond)),
		ProduceRequests:  ps.Requests,
		Batches:          ps.Batches,
		Retries:          ps.Retries,
		BatchSplits:      ps.Splits,
	}
	sum.Reauthentications = ps.Reauthentications
	if secs := wall.Seconds(); secs > 0 {
		sum.RecordsPerSec = round3(float64(delivered) / secs)
		sum.MBPerSec = round3(float64(sum.RecordBytes) / 1e6 / secs)
	}
	if ps.Batches > 0 {
		sum.RecordsPerBatch = round3(float64(delivered) / float64(ps.Batches))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.latency.Count() > 0 {
		ms := func(ns int64) *float64 { v := round3(float64(ns) / 1e6); return &v }
		sum.LatencyMs = StatsLatency{P50: ms(s.latency.Percentile(0.5)), P99: ms(s.latency.Percentile(0.99)), Max: ms(s.latency.Max())}
	}
	return sum
}

// round3 rounds to three decimals.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// appendText appends the summary as the lines --stats prints.
func (sum *StatsSummary) appendText(b []byte) []byte {
	b = fmt.Appendf(b, "stats: records   %d delivered, %d failed", sum.RecordsDelivered, sum.RecordsFailed)
	if sum.RecordsSkipped > 0 {
		b = fmt.Appendf(b, ", %d skipped (committed by an earlier run)", sum.RecordsSkipped)
	}
	b = append(b, '\n')
	b = fmt.Appendf(b, "stats: bytes     %d of keys and values, %d on the wire\n", sum.RecordBytes, sum.WireBytes)
	b = fmt.Appendf(b, "stats: time      %s, %.1f records/s, %.2f MB/s\n",
		time.Duration(sum.WallTimeMs*float64(time.Millisecond)).Round(time.Millisecond), sum.RecordsPerSec, sum.MBPerSec)
	b = fmt.Appendf(b, "stats: requests  %d produce requests, %d batches, %.1f records per batch\n",
		sum.ProduceRequests, sum.Batches, sum.RecordsPerBatch)
	b = fmt.Appendf(b, "stats: retries   %d, %d batch splits\n", sum.Retries, sum.BatchSplits)
	if sum.Reauthentications > 0 {
		b = fmt.Appendf(b, "stats: sessions  %d re-authentications\n", sum.Reauthentications)
	}
	if l := sum.LatencyMs; l.P50 != nil {
		b = fmt.Appendf(b, "stats: latency   p50 %.3fms, p99 %.3fms, max %.3fms\n", *l.P50, *l.P99, *l.Max)
	} else {
		b = append(b, "stats: latency   none: no record was delivered\n"...)
	}
	return b
}

// statsJSONFile is where --stats-json writes: a file created before
// anything is produced, or stdout.
type statsJSONFile struct {
	name string
	w    io.Writer
	f    *os.File // nil for stdout
}

// openStatsJSON creates the --stats-json file, so that a path that cannot
// be written is a usage error before anything is sent. It returns nil when
// there is no --stats-json.
func openStatsJSON(name string, stdout io.Writer) (*statsJSONFile, error) {
	switch name {
	case "":
		return nil, nil
	case "-":
		return &statsJSONFile{name: "stdout", w: stdout}, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, cmdutil.UsageErrorf("--stats-json: %w", err)
	}
	return &statsJSONFile{name: name, w: f, f: f}, nil
}

// write writes the summary as one JSON object and a newline, and closes
// the file.
func (j *statsJSONFile) write(sum *StatsSummary) error {
	b, err := json.Marshal(sum)
	if err == nil {
		_, err = j.w.Write(append(b, '\n'))
	}
	if j.f != nil {
		if cerr := j.f.Close(); err == nil {
			err = cerr
		}
		j.f = nil
	}
	if err != nil {
		return fmt.Errorf("--stats-json %s: %w", j.name, err)
	}
	return nil
}

// close closes the file unwritten (the run ended before its summary).
func (j *statsJSONFile) close() {
	if j != nil && j.f != nil {
		_ = j.f.Close()
	}
}

// reportStats prints the --stats summary on stderr and writes the
// --stats-json one. It reports whether the JSON could not be written.
func (r *producerRun) reportStats() (failed bool) {
	if r.stats == nil {
		return false
	}
	delivered, failedRecords := r.rep.Counts()
	sum := r.stats.summary(delivered, failedRecords, r.prod.Stats(), time.Now())
	if r.resume != nil {
		sum.RecordsSkipped = r.resume.skipped
	}
	if r.opts.Stats {
		r.rep.Errorf("%s", sum.appendText(nil))
	}
	if r.statsJSON == nil {
		return false
	}
	if err := r.statsJSON.write(&sum); err != nil {
		r.rep.Errorf("error: %v\n", err)
		return true
	}
	return false
}
