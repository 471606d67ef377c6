package perfcmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/config"
)

func TestKafkaLines(t *testing.T) {
	p := PhaseResult{Records: 1000, RecordsPerSec: 1234.5678, MBPerSec: 0.1177,
		LatencyMs: &Latency{Avg: 2.3456, Max: 10.5, P50: 2.9, P95: 5.01, P99: 9.999, P999: 10.5}}
	assert.Equal(t, "1000 records sent, 1234.567800 records/sec (0.12 MB/sec), 2.35 ms avg latency, 10.50 ms max latency, "+
		"2 ms 50th, 5 ms 95th, 9 ms 99th, 10 ms 99.9th.\n", string(appendTotal(nil, &p, "")))
	assert.Equal(t, "1000 steady state records sent, 1234.567800 records/sec (0.12 MB/sec), 2.35 ms avg latency, 10.50 ms max latency, "+
		"2 ms 50th, 5 ms 95th, 9 ms 99th, 10 ms 99.9th.\n", string(appendTotal(nil, &p, " steady state")))
	assert.Equal(t, "0 records sent, 0.000000 records/sec (0.00 MB/sec), 0.00 ms avg latency, 0.00 ms max latency, "+
		"0 ms 50th, 0 ms 95th, 0 ms 99th, 0 ms 99.9th.\n", string(appendTotal(nil, &PhaseResult{}, "")), "no record: zeros, not NaN")

	var out bytes.Buffer
	text := &textOutput{w: &out}
	w := windowReport{Records: 5000, RecordsPerSec: 999.96, MBPerSec: 0.095, first: true}
	w.LatencyMs.Avg, w.LatencyMs.Max = 1.26, 7
	text.window(w)
	w.first = false
	text.window(w)
	assert.Equal(t, "In steady state.\n5000 records sent, 1000.0 records/sec (0.10 MB/sec), 1.3 ms avg latency, 7.0 ms max latency.\n"+
		"5000 records sent, 1000.0 records/sec (0.10 MB/sec), 1.3 ms avg latency, 7.0 ms max latency.\n", out.String())
}

func TestPreamble(t *testing.T) {
	var out bytes.Buffer
	o := &Options{Producer: &config.Options{}, Payload: Payload{File: "/data/p.txt", Entries: make([][]byte, 3)}, WarmupRecords: 10}
	(&textOutput{w: &out}).preamble(o)
	assert.Equal(t, "Reading payloads from: /data/p.txt\nNumber of messages read: 3\n"+
		"Warmup first 10 records. Steady state results will print after the complete test summary.\n", out.String())
	out.Reset()
	(&jsonOutput{w: &out}).preamble(o)
	assert.Empty(t, out.String(), "stdout holds JSON only")
}

func TestMetrics(t *testing.T) {
	res := &Result{PhaseResult: PhaseResult{Records: 90, Bytes: 900}, Failed: 10,
		Producer: ProducerResult{Requests: 4, Batches: 8, WireBytes: 1234, Retries: 1}}
	lines := strings.Split(strings.TrimRight(string(appendMetrics(nil, res, "c1")), "\n"), "\n")
	require.Equal(t, "", lines[0], "a blank line first, as kafka-producer-perf-test's")
	assert.Regexp(t, `^Metric Name +Value$`, lines[1])
	want := map[string]string{"record-send-total": "100.000", "record-error-total": "10.000", "batch-total": "8.000",
		"record-size-avg": "10.000", "records-per-request-avg": "25.000", "produce-request-byte-total": "1234.000",
		"batch-retry-total": "1.000"}
	width := strings.Index(lines[2], " : ")
	for _, l := range lines[2:] {
		assert.Equal(t, width, strings.Index(l, " : "), "aligned: %q", l)
		name, value, _ := strings.Cut(l, " : ")
		parts := strings.Split(strings.TrimSpace(name), ":")
		require.Len(t, parts, 3, l)
		assert.Equal(t, "producer-metrics", parts[0])
		assert.Equal(t, "{client-id=c1}", parts[2])
		if v, ok := want[parts[1]]; ok {
			assert.Equal(t, v, value, parts[1])
			delete(want, parts[1])
		}
	}
	assert.Empty(t, want, "every metric printed")
}

func TestJSONOutput(t *testing.T) {
	var out bytes.Buffer
	j := &jsonOutput{w: &out}
	j.window(windowReport{Type: "window", Records: 1})
	assert.Empty(t, out.String(), "windows only with --progress-json")
	j.progress = true
	j.window(windowReport{Type: "window", Records: 1, first: true})
	require.NoError(t, j.summary(&Result{Type: "summary", Errors: map[string]int64{}}, nil))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	var w map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &w))
	assert.Equal(t, "window", w["type"])
	assert.NotContains(t, w, "first")
	var s map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &s))
	for _, k := range []string{"type", "topic", "records", "bytes", "seconds", "records_per_sec", "mb_per_sec", "latency_ms",
		"failed", "errors", "steady_state", "transactions", "partitions", "brokers", "producer", "settings", "error"} {
		assert.Contains(t, s, k)
	}
	assert.NotContains(t, s, "histogram", "only with --histogram")
}
