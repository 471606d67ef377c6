package perfcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// output prints a run: kafka-producer-perf-test's lines (text) or JSON.
type output interface {
	windowWriter
	// preamble prints what comes before the first record.
	preamble(o *Options)
	// summary prints the run's summary.
	summary(res *Result, o *Options) error
}

// newOutput returns the output o asks for, on w.
func newOutput(o *Options, w io.Writer) output {
	if o.JSON {
		return &jsonOutput{w: w, progress: o.ProgressJSON}
	}
	return &textOutput{w: w}
}

// textOutput prints kafka-producer-perf-test's lines, with its formats.
type textOutput struct {
	w   io.Writer
	buf []byte
}

// The formats of kafka-producer-perf-test's lines (MB = 2^20 bytes).
const (
	windowFormat = "%d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency.\n"
	totalFormat  = "%d%s records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, " +
		"%d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.\n"
	steadyStateLine = "In steady state.\n"
)

func (t *textOutput) preamble(o *Options) {
	if o.Payload.File != "" {
		_, _ = fmt.Fprintf(t.w, "Reading payloads from: %s\nNumber of messages read: %d\n", absPath(o.Payload.File), len(o.Payload.Entries))
	}
	if o.WarmupRecords > 0 {
		_, _ = fmt.Fprintf(t.w, "Warmup first %d records. Steady state results will print after the complete test summary.\n", o.WarmupRecords)
	}
}

func (t *textOutput) window(w windowReport) {
	t.buf = t.buf[:0]
	if w.first {
		t.buf = append(t.buf, steadyStateLine...)
	}
	t.buf = fmt.Appendf(t.buf, windowFormat, w.Records, w.RecordsPerSec, w.MBPerSec, w.LatencyMs.Avg, w.LatencyMs.Max)
	_, _ = t.w.Write(t.buf)
}

func (t *textOutput) summary(res *Result, o *Options) error {
	b := appendTotal(nil, &res.PhaseResult, "")
	if res.SteadyState != nil {
		b = appendTotal(b, res.SteadyState, " steady state")
	}
	if o.PrintMetrics {
		b = appendMetrics(b, res, o.Producer.ClientID)
	}
	if o.Histogram {
		b = appendChart(b, res.Histogram)
	}
	_, err := t.w.Write(b)
	return err
}

// appendTotal appends the summary line of a phase; what is " steady
// state" for the steady state's.
func appendTotal(b []byte, p *PhaseResult, what string) []byte {
	var l Latency
	if p.LatencyMs != nil {
		l = *p.LatencyMs
	}
	whole := func(ms float64) int64 { return int64(math.Floor(ms)) }
	return fmt.Appendf(b, totalFormat, p.Records, what, p.RecordsPerSec, p.MBPerSec, l.Avg, l.Max,
		whole(l.P50), whole(l.P95), whole(l.P99), whole(l.P999))
}

// appendMetrics appends the producer's metrics as kafka-producer-perf-test
// prints them with --print-metrics: "group:name:{tags} : value", sorted.
func appendMetrics(b []byte, res *Result, clientID string) []byte {
	per := func(a, n float64) float64 {
		if n == 0 {
			return 0
		}
		return a / n
	}
	handed := float64(res.Records + res.Failed)
	values := map[string]float64{
		"batch-retry-total":          float64(res.Producer.Retries),
		"batch-split-total":          float64(res.Producer.BatchSplits),
		"batch-total":                float64(res.Producer.Batches),
		"produce-request-byte-total": float64(res.Producer.WireBytes),
		"produce-request-total":      float64(res.Producer.Requests),
		"record-error-total":         float64(res.Failed),
		"record-send-total":          handed,
		"record-size-avg":            per(float64(res.Bytes), float64(res.Records)),
		"records-per-batch-avg":      per(handed, float64(res.Producer.Batches)),
		"records-per-request-avg":    per(handed, float64(res.Producer.Requests)),
	}
	names := make([]string, 0, len(values))
	width := len("Metric Name")
	for name := range values {
		full := "producer-metrics:" + name + ":{client-id=" + clientID + "}"
		names = append(names, full)
		width = max(width, len(full))
	}
	slices.Sort(names)
	b = fmt.Appendf(b, "\n%-*s   %s\n", width, "Metric Name", "Value")
	for _, full := range names {
		name := strings.Split(full, ":")[1]
		b = fmt.Appendf(b, "%-*s : %.3f\n", width, full, values[name])
	}
	return b
}

// jsonOutput prints the summary as one JSON object, and the windows as
// lines of JSON with --progress-json.
type jsonOutput struct {
	w        io.Writer
	progress bool
}

func (j *jsonOutput) preamble(*Options) {}

func (j *jsonOutput) window(w windowReport) {
	if j.progress {
		_ = j.writeLine(w)
	}
}

func (j *jsonOutput) summary(res *Result, _ *Options) error { return j.writeLine(res) }

// writeLine writes v as one line of JSON.
func (j *jsonOutput) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = j.w.Write(append(b, '\n'))
	return err
}
