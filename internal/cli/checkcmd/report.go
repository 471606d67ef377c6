package checkcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// checkReport is what kproduce check prints; its JSON form is fixed
// (topic, ok, partitions with partition, leader, ok, offset, latency_ms
// and error, summary with ok, failed and latency_ms); the other fields
// are additions.
type checkReport struct {
	Topic string `json:"topic"`
	OK    bool   `json:"ok"`
	// Error says why the check could not run; the partitions are empty.
	Error      *string           `json:"error,omitempty"`
	Created    bool              `json:"created"`
	Canaries   int64             `json:"canaries_per_partition"`
	RunID      string            `json:"run_id"`
	Partitions []partitionResult `json:"partitions"`
	Summary    checkSummary      `json:"summary"`
}

// partitionResult is one partition's outcome. Offset is its last canary's
// offset and LatencyMs its slowest canary's latency; both null unless
// every canary was delivered. Error is "no leader" (from the metadata),
// "not reachable" (no connection to the leader), a Kafka error code name,
// "timed out" or "failed"; Detail explains it.
type partitionResult struct {
	Partition int32    `json:"partition"`
	Leader    int32    `json:"leader"`
	OK        bool     `json:"ok"`
	Offset    *int64   `json:"offset"`
	LatencyMs *float64 `json:"latency_ms"`
	// ReadLatencyMs is the slowest canary's time from send to being read
	// back (produce to consume); null unless every canary was read back.
	ReadLatencyMs *float64 `json:"read_latency_ms"`
	Error         *string  `json:"error"`
	Detail        *string  `json:"detail,omitempty"`
}

// checkSummary counts the partitions and summarises the latencies of
// every delivered canary.
type checkSummary struct {
	OK        int            `json:"ok"`
	Failed    int            `json:"failed"`
	Delivered int            `json:"canaries_delivered"`
	LatencyMs latencySummary `json:"latency_ms"`
	// ReadBack counts the canaries read back, ReadLatencyMs their
	// produce-to-consume latencies.
	ReadBack      int            `json:"canaries_read_back"`
	ReadLatencyMs latencySummary `json:"read_latency_ms"`
}

// latencySummary holds latencies in ms; null when no canary was
// delivered.
type latencySummary struct {
	Min    *float64 `json:"min"`
	Median *float64 `json:"median"`
	P99    *float64 `json:"p99"`
	Max    *float64 `json:"max"`
}

// summarize fills the summary and OK from the partitions and the
// latencies of the delivered canaries and of those read back.
func (r *checkReport) summarize(latencies, readLatencies []time.Duration) {
	r.Summary = checkSummary{Delivered: len(latencies), ReadBack: len(readLatencies),
		LatencyMs: summarizeLatencies(latencies), ReadLatencyMs: summarizeLatencies(readLatencies)}
	for _, p := range r.Partitions {
		if p.OK {
			r.Summary.OK++
		} else {
			r.Summary.Failed++
		}
	}
	r.OK = r.Summary.Failed == 0 && len(r.Partitions) > 0
}

// summarizeLatencies is min, median, p99 and max of latencies; nulls for
// none.
func summarizeLatencies(latencies []time.Duration) latencySummary {
	if len(latencies) == 0 {
		return latencySummary{}
	}
	s := slices.Clone(latencies)
	slices.Sort(s)
	median := s[len(s)/2]
	if len(s)%2 == 0 {
		median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	p99 := s[int(math.Ceil(0.99*float64(len(s))))-1] // nearest rank
	return latencySummary{Min: ms(s[0]), Median: ms(median), P99: ms(p99), Max: ms(s[len(s)-1])}
}

// ms is d in milliseconds, rounded to the microsecond.
func ms(d time.Duration) *float64 {
	v := math.Round(float64(d.Microseconds())) / 1000
	return &v
}

// writeJSON prints the report as one JSON object.
func (r *checkReport) writeJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(r)
}

// writeText prints the report as a table and a summary; failures are
// also listed on errw, one line each.
func (r *checkReport) writeText(w, errw io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	created := ""
	if r.Created {
		created = " (created)"
	}
	fmt.Fprintf(tw, "topic %s%s: %s, %s each (header kproduce-canary: %s)\n",
		r.Topic, created, cmdutil.Plural(len(r.Partitions), "partition"), cmdutil.Plural(int(r.Canaries), "canary"), r.RunID)
	fmt.Fprintf(tw, "  PARTITION\tLEADER\tOFFSET\tLATENCY\tREAD\tSTATUS\n")
	for _, p := range r.Partitions {
		leader, offset, latency, status := "none", "-", "-", "ok"
		read := msText(p.ReadLatencyMs)
		if p.Leader >= 0 {
			leader = fmt.Sprint(p.Leader)
		}
		if p.Offset != nil {
			offset = fmt.Sprint(*p.Offset)
		}
		if p.LatencyMs != nil {
			latency = msText(p.LatencyMs)
		}
		if p.Error != nil {
			status = "FAILED: " + *p.Error
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", p.Partition, leader, offset, latency, read, status)
	}
	l := r.Summary.LatencyMs
	fmt.Fprintf(tw, "partitions: %d ok, %d failed\n", r.Summary.OK, r.Summary.Failed)
	fmt.Fprintf(tw, "latency of %s: min %s, median %s, p99 %s, max %s (a partition's latency is its slowest canary's)\n",
		cmdutil.Plural(r.Summary.Delivered, "canary"), msText(l.Min), msText(l.Median), msText(l.P99), msText(l.Max))
	rl := r.Summary.ReadLatencyMs
	fmt.Fprintf(tw, "read back %s: produce to consume min %s, median %s, p99 %s, max %s\n",
		cmdutil.Plural(r.Summary.ReadBack, "canary"), msText(rl.Min), msText(rl.Median), msText(rl.P99), msText(rl.Max))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range r.Partitions {
		if p.Error == nil {
			continue
		}
		detail := ""
		if p.Detail != nil {
			detail = ": " + *p.Detail
		}
		fmt.Fprintf(errw, "error: %s/%d (leader %d): %s%s\n", r.Topic, p.Partition, p.Leader, *p.Error, detail)
	}
	return nil
}

// msText prints a latency in ms, "-" for none.
func msText(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1fms", *v)
}
