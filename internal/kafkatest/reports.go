package kafkatest

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// JSONReport is one delivery report of -o json, as printed.
type JSONReport struct {
	Source    string  `json:"source"`
	Record    int64   `json:"record"`
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Timestamp int64   `json:"timestamp"`
	Error     *string `json:"error"`
}

// ParseJSONReports decodes every line of out as a json report, checking
// that each has exactly the documented keys, in order: the success shape,
// plus "error" last for a failure.
func ParseJSONReports(t testing.TB, out string) []JSONReport {
	t.Helper()
	return ParseJSONLines(t, out, []string{"source", "record", "topic", "partition", "offset", "timestamp"},
		func(r *JSONReport) bool { return r.Error != nil })
}

// ParseJSONLines decodes every line of out as a T with no unknown field,
// checking that its keys are exactly keys, in order, plus "error" last
// when failed says the line is a failure.
func ParseJSONLines[T any](t testing.TB, out string, keys []string, failed func(*T) bool) []T {
	t.Helper()
	var reps []T
	for _, l := range Lines(out) {
		var rep T
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rep); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		want := slices.Clone(keys)
		if failed(&rep) {
			want = append(want, "error")
		}
		if got := JSONKeys(t, l); !slices.Equal(want, got) {
			t.Fatalf("keys of %q: %q, want %q", l, got, want)
		}
		reps = append(reps, rep)
	}
	return reps
}

// JSONKeys returns the top-level keys of the JSON object line, in order.
func JSONKeys(t testing.TB, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%q is not a JSON object (%v)", line, err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	}
	return keys
}

// StatsJSONKeys are the documented keys of --stats-json, in order.
var StatsJSONKeys = []string{"records_delivered", "records_failed", "records_skipped", "record_bytes", "wire_bytes",
	"wall_time_ms", "records_per_sec", "mb_per_sec", "produce_requests", "batches",
	"records_per_batch", "retries", "batch_splits", "latency_ms"}

// ReadStatsJSON decodes the --stats-json file at path into summary
// (producecmd.StatsSummary), checking that it is one JSON object and a
// newline with exactly the documented keys, in order, its latencies
// p50, p99 and max, and no field summary does not know.
func ReadStatsJSON(t testing.TB, path string, summary any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("}\n")) {
		t.Fatalf("not one object and a newline: %q", data)
	}
	if got := JSONKeys(t, string(data)); !slices.Equal(StatsJSONKeys, got) {
		t.Fatalf("keys of --stats-json: %q, want %q", got, StatsJSONKeys)
	}
	var raw map[string]json.RawMessage
	var lat map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw["latency_ms"], &lat); err != nil {
		t.Fatal(err)
	}
	if keys := slices.Sorted(maps.Keys(lat)); !slices.Equal([]string{"max", "p50", "p99"}, keys) {
		t.Errorf("latency_ms keys %q, want max, p50, p99", keys)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(summary); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
}
