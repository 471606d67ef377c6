package producecmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// faultLongEnv set (to anything) runs every fault scenario with 100,000 records
// instead of the default faultDefaultRecords (the default keeps the suite
// within a few minutes under the race detector on two cores).
const faultLongEnv = "KPRODUCE_LONG_TESTS"

// faultDebugEnv names a directory: each scenario then runs with
// --log-level debug and its log is written there.
const faultDebugEnv = "KPRODUCE_FAULT_DEBUG"

const (
	faultDefaultRecords = 12_000
	faultLongRecords    = 100_000
	faultDistinctKeys   = 1_000
)

// faultRecordCount is the number of input records of a scenario.
func faultRecordCount() int {
	if kafkatest.LongTests() {
		return faultLongRecords
	}
	return faultDefaultRecords
}

// faultDeliveryTimeout is the --delivery-timeout of a scenario whose
// records are meant to fail after about d: d, or four times d with
// faultLongEnv, whose larger input takes longer to send under the race
// detector (the other records must not run out of time).
func faultDeliveryTimeout(d time.Duration) time.Duration {
	if kafkatest.LongTests() {
		return 4 * d
	}
	return d
}

// deliveryTimeoutArg is faultDeliveryTimeout as a flag value.
func deliveryTimeoutArg(d time.Duration) string { return faultDeliveryTimeout(d).String() }

// faultInput is a scenario's input: keyed lines "KEY\tVALUE". Every value
// is unique and starts with its line number, so a record read back names
// the input line it came from.
type faultInput struct {
	keys, values []string // index: line number - 1
	stdin        []byte
	// pace, when set, spreads the input over about that long, so that
	// records keep arriving while faults happen.
	pace time.Duration
}

// reader returns the input as the command reads it.
func (in *faultInput) reader() io.Reader {
	if in.pace <= 0 {
		return bytes.NewReader(in.stdin)
	}
	const chunk = 4 << 10
	chunks := (len(in.stdin) + chunk - 1) / chunk
	return &pacedReader{data: in.stdin, chunk: chunk, every: in.pace / time.Duration(chunks)}
}

// pacedReader serves its data a chunk at a time, a chunk every so often.
type pacedReader struct {
	data  []byte
	chunk int
	every time.Duration
	next  time.Time
}

// Read waits for the next chunk's time and serves it.
func (r *pacedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	if wait := time.Until(r.next); wait > 0 {
		time.Sleep(wait) // pacing the input is the scenario, not a wait for something
	}
	r.next = time.Now().Add(r.every)
	n := copy(p, r.data[:min(r.chunk, len(r.data))])
	r.data = r.data[n:]
	return n, nil
}

// newFaultInput makes n lines over distinctKeys keys.
func newFaultInput(n, distinctKeys int) *faultInput {
	in := &faultInput{keys: make([]string, n), values: make([]string, n)}
	var b bytes.Buffer
	for i := range n {
		line := i + 1
		in.keys[i] = fmt.Sprintf("key-%04d", (line*7919)%distinctKeys)
		in.values[i] = fmt.Sprintf("line-%07d-payload-%08x", line, uint32(line)*2654435761)
		b.WriteString(in.keys[i])
		b.WriteByte('\t')
		b.WriteString(in.values[i])
		b.WriteByte('\n')
	}
	in.stdin = b.Bytes()
	return in
}

// withValue replaces the value of line (1-based), e.g. by an oversized one
// that still starts with the line number.
func (in *faultInput) withValue(line int, value string) {
	in.values[line-1] = value
	var b bytes.Buffer
	for i := range in.keys {
		b.WriteString(in.keys[i])
		b.WriteByte('\t')
		b.WriteString(in.values[i])
		b.WriteByte('\n')
	}
	in.stdin = b.Bytes()
}

// lineOf returns the input line number a value carries.
func lineOf(value []byte) (int, bool) {
	s, ok := strings.CutPrefix(string(value[:min(len(value), 12)]), "line-")
	if !ok || len(s) != 7 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// faultBaseArgs are the flags every scenario uses: keyed lines, json
// reports, small batches (so a run makes many requests) and a short retry
// backoff.
func faultBaseArgs(fc *faultCluster) []string {
	return []string{"-b", kafkatest.Brokers(fc.Cluster), "-t", fc.topic, "-K", `\t`, "-o", "json",
		"--batch-size", "2KiB", "--linger", "2ms", "--retry-backoff", "20ms"}
}

// faultReport is one json report.
type faultReport = kafkatest.JSONReport

// faultOutcome is what one scenario run produced: the command's result,
// its reports by line and the topic's content read back.
type faultOutcome struct {
	res     kafkatest.Result
	elapsed time.Duration
	reports []*faultReport // index: line number - 1
	topic   []*kgo.Record
}

// runFault runs kproduce on in's lines with the base flags plus args.
func runFault(t *testing.T, fc *faultCluster, in *faultInput, args ...string) *faultOutcome {
	t.Helper()
	debugDir := kafkatest.Getenv(faultDebugEnv)
	if debugDir != "" {
		args = append(args, "--log-level", "debug")
	}
	start := time.Now()
	res := runKproduce(t, in.reader(), append(faultBaseArgs(fc), args...)...)
	out := &faultOutcome{res: res, elapsed: time.Since(start)}
	endStart := time.Now()
	fc.runEnded()
	if d := time.Since(endStart); d > 5*time.Second {
		t.Logf("the end of the run took %s", d.Round(time.Millisecond))
	}
	if debugDir != "" {
		name := filepath.Join(debugDir, strings.ReplaceAll(t.Name(), "/", "_")+".log")
		require.NoError(t, os.WriteFile(name, []byte(res.Stderr), 0o600))
	}
	require.NotContains(t, res.Stderr, "panic", "stderr")
	out.reports = parseFaultReports(t, res, fc.topic, len(in.keys))
	consumeStart := time.Now()
	out.topic = consumeTopic(t, fc)
	if d := time.Since(consumeStart); d > 5*time.Second {
		t.Logf("reading the topic back took %s", d.Round(time.Millisecond))
	}
	return out
}

// parseFaultReports decodes the json reports and checks that every input
// line has exactly one.
func parseFaultReports(t *testing.T, res kafkatest.Result, topic string, n int) []*faultReport {
	t.Helper()
	reps := make([]*faultReport, n)
	got := 0
	for l := range strings.Lines(res.Stdout) {
		rep := new(faultReport)
		require.NoError(t, json.Unmarshal([]byte(l), rep), "report %q", l)
		require.Equal(t, "-", rep.Source, "report %q", l)
		require.Equal(t, topic, rep.Topic, "report %q", l)
		require.True(t, rep.Record >= 1 && rep.Record <= int64(n), "report %q: no such record", l)
		require.Nil(t, reps[rep.Record-1], "record %d reported twice: %q", rep.Record, l)
		reps[rep.Record-1] = rep
		got++
	}
	if got < n {
		for i, r := range reps {
			require.NotNil(t, r, "record %d has no report (%d of %d reported, exit %d); stderr tail:\n%s",
				i+1, got, n, res.Code, tail(res.Stderr, 3000))
		}
	}
	return reps
}

// consumeTopic reads every record stored in the scenario's topic with kgo,
// up to the high watermarks the cluster reports. A record fetched twice at
// the same offset (a consumer retrying a fetch) is kept once.
func consumeTopic(t *testing.T, fc *faultCluster) []*kgo.Record {
	t.Helper()
	want := int(kafkatest.RecordCount(fc.Cluster, fc.topic))
	cl, err := kgo.NewClient(kgo.SeedBrokers(fc.ListenAddrs()...), kgo.ConsumeTopics(fc.topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxBytes(16<<20))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	recs := make([]*kgo.Record, 0, want)
	seen := make(map[[2]int64]bool, want)
	for len(recs) < want && ctx.Err() == nil {
		for _, r := range cl.PollFetches(ctx).Records() {
			if pos := [2]int64{int64(r.Partition), r.Offset}; !seen[pos] {
				seen[pos] = true
				recs = append(recs, r)
			}
		}
	}
	require.Equal(t, want, len(recs), "records read back from %s", fc.topic)
	return recs
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
