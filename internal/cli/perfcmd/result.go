package perfcmd

import (
	"math"
	"slices"
	"time"

	"github.com/kproduce/kproduce/internal/histogram"
	"github.com/kproduce/kproduce/pkg/sender"
)

// mib is a megabyte as kafka-producer-perf-test counts it: 2^20 bytes.
const mib = 1 << 20

// Result is the summary of a run, as -o json prints it (one object, the
// last line of stdout). Its field names are stable; docs/perf.md
// describes each.
type Result struct {
	Type  string `json:"type"` // "summary"
	Topic string `json:"topic"`
	PhaseResult
	// Failed is the number of records that failed, Errors the same by
	// reason.
	Failed int64            `json:"failed"`
	Errors map[string]int64 `json:"errors"`
	// SteadyState is the phase after --warmup-records; nil without.
	SteadyState  *PhaseResult       `json:"steady_state"`
	Transactions *TransactionResult `json:"transactions"`
	Partitions   []PartitionResult  `json:"partitions"`
	Brokers      []BrokerResult     `json:"brokers"`
	Producer     ProducerResult     `json:"producer"`
	Settings     Settings           `json:"settings"`
	// Histogram is the latency distribution, with --histogram (no rows
	// when no record was acknowledged); nil without.
	Histogram []HistogramRow `json:"histogram,omitzero"`
	// Error says why the run stopped before its end; nil when it did not.
	Error *string `json:"error"`
}

// PhaseResult is what the records of the run, or of its steady state,
// did: the acknowledged ones.
type PhaseResult struct {
	Records       int64    `json:"records"`
	Bytes         int64    `json:"bytes"`
	Seconds       float64  `json:"seconds"`
	RecordsPerSec float64  `json:"records_per_sec"`
	MBPerSec      float64  `json:"mb_per_sec"`
	LatencyMs     *Latency `json:"latency_ms"` // nil when no record was acknowledged
}

// Latency are latencies in milliseconds, to the microsecond.
type Latency struct {
	Avg  float64 `json:"avg"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

// PartitionResult is what the records of one partition did.
type PartitionResult struct {
	Partition int32    `json:"partition"`
	Leader    int32    `json:"leader"` // -1: none known
	Records   int64    `json:"records"`
	Failed    int64    `json:"failed"`
	Bytes     int64    `json:"bytes"`
	LatencyMs *Latency `json:"latency_ms"`
}

// BrokerResult is what the records of the partitions a broker led did.
type BrokerResult struct {
	Broker     int32    `json:"broker"`
	Partitions []int32  `json:"partitions"`
	Records    int64    `json:"records"`
	Failed     int64    `json:"failed"`
	Bytes      int64    `json:"bytes"`
	LatencyMs  *Latency `json:"latency_ms"`
}

// TransactionResult counts the transactions.
type TransactionResult struct {
	Committed int64 `json:"committed"`
	Aborted   int64 `json:"aborted"`
}

// ProducerResult is what the producer did to send the records.
type ProducerResult struct {
	Requests        int64   `json:"requests"`
	Batches         int64   `json:"batches"`
	WireBytes       int64   `json:"wire_bytes"`
	Retries         int64   `json:"retries"`
	BatchSplits     int64   `json:"batch_splits"`
	RecordsPerBatch float64 `json:"records_per_batch"`
}

// HistogramRow is one row of the latency distribution: the records
// acknowledged within [FromMs, ToMs).
type HistogramRow struct {
	FromMs  float64 `json:"from_ms"`
	ToMs    float64 `json:"to_ms"`
	Records int64   `json:"records"`
}

// windowReport is one window: what kafka-producer-perf-test prints every
// 5 s, and -o json --progress-json as a line of JSON.
type windowReport struct {
	Type          string  `json:"type"` // "window"
	SteadyState   bool    `json:"steady_state"`
	Records       int64   `json:"records"`
	Seconds       float64 `json:"seconds"`
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	LatencyMs     struct {
		Avg float64 `json:"avg"`
		Max float64 `json:"max"`
	} `json:"latency_ms"`
	// first says it is the first window of the steady state.
	first bool
}

// report is the window ending at end.
func (w *window) report(end time.Time, steady, first bool) windowReport {
	r := windowReport{Type: "window", SteadyState: steady, Records: w.records, first: first}
	r.Seconds = end.Sub(w.start).Seconds()
	if r.Seconds > 0 {
		r.RecordsPerSec = float64(w.records) / r.Seconds
		r.MBPerSec = float64(w.bytes) / mib / r.Seconds
	}
	if w.records > 0 {
		r.LatencyMs.Avg = ms(float64(w.latencySum) / float64(w.records))
	}
	r.LatencyMs.Max = ms(float64(w.maxLat))
	return r
}

// result is the phase's summary at end.
func (p *phase) result(end time.Time) PhaseResult {
	r := PhaseResult{Records: p.records, Bytes: p.bytes, Seconds: end.Sub(p.start).Seconds()}
	if r.Seconds > 0 {
		r.RecordsPerSec = float64(p.records) / r.Seconds
		r.MBPerSec = float64(p.bytes) / mib / r.Seconds
	}
	r.LatencyMs = latencyOf(p.latency)
	return r
}

// latencyOf summarises a histogram of nanoseconds; nil when it is empty.
func latencyOf(h *histogram.Histogram) *Latency {
	if h.Count() == 0 {
		return nil
	}
	q := func(p float64) float64 { return ms(float64(h.Percentile(p))) }
	return &Latency{Avg: ms(h.Mean()), Min: ms(float64(h.Min())), Max: ms(float64(h.Max())),
		P50: q(0.5), P90: q(0.9), P95: q(0.95), P99: q(0.99), P999: q(0.999)}
}

// ms turns nanoseconds into milliseconds to the microsecond.
func ms(ns float64) float64 { return math.Round(ns/1e3) / 1e3 }

// result is the run's summary at end: leaders gives each partition's
// leader (as the metadata said at the start), ps what the producer did.
// c.mu need not be held: the producer is closed.
func (c *collector) result(end time.Time, leaders map[int32]int32, ps sender.Stats) *Result {
	res := &Result{Type: "summary", Topic: c.topic, PhaseResult: c.total.result(end), Failed: c.failed,
		Errors: map[string]int64{}, Partitions: []PartitionResult{}, Brokers: []BrokerResult{}}
	for _, rc := range c.reasons {
		res.Errors[rc.reason] = rc.count
	}
	if c.steady != nil {
		s := c.steady.result(end)
		res.SteadyState = &s
	}
	brokers := map[int32]*brokerStats{}
	for i := range max(len(c.parts), maxPartition(c.partFailed)+1) {
		var p partitionStats
		if i < len(c.parts) {
			p = c.parts[i]
		}
		failed := c.partFailed[int32(i)]
		if p.records == 0 && failed == 0 {
			continue
		}
		leader, ok := leaders[int32(i)]
		if !ok {
			leader = -1
		}
		pr := PartitionResult{Partition: int32(i), Leader: leader, Records: p.records, Failed: failed, Bytes: p.bytes,
			LatencyMs: latencyOf(&p.latency)}
		res.Partitions = append(res.Partitions, pr)
		if leader >= 0 {
			b := brokers[leader]
			if b == nil {
				b = &brokerStats{BrokerResult: BrokerResult{Broker: leader}}
				brokers[leader] = b
			}
			b.add(&pr, &p.latency)
		}
	}
	for _, b := range brokers {
		b.LatencyMs = latencyOf(&b.latency)
		res.Brokers = append(res.Brokers, b.BrokerResult)
	}
	slices.SortFunc(res.Brokers, func(a, b BrokerResult) int { return int(a.Broker - b.Broker) })
	res.Producer = ProducerResult{Requests: ps.Requests, Batches: ps.Batches, WireBytes: ps.WireBytes,
		Retries: ps.Retries, BatchSplits: ps.Splits}
	if ps.Batches > 0 {
		res.Producer.RecordsPerBatch = math.Round(float64(c.total.records)/float64(ps.Batches)*10) / 10
	}
	return res
}

// brokerStats adds up the partitions a broker led.
type brokerStats struct {
	BrokerResult
	latency histogram.Histogram
}

func (b *brokerStats) add(p *PartitionResult, latency *histogram.Histogram) {
	b.Partitions = append(b.Partitions, p.Partition)
	b.Records += p.Records
	b.Failed += p.Failed
	b.Bytes += p.Bytes
	b.latency.Merge(latency)
}

// maxPartition is the highest partition of m, -1 when it is empty.
func maxPartition(m map[int32]int64) int {
	most := -1
	for p := range m {
		most = max(most, int(p))
	}
	return most
}
