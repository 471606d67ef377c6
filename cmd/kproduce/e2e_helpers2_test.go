package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// produceTo runs kproduce against cluster c with stdin and args, adding -b.
func produceTo(t testing.TB, c *kfake.Cluster, stdin io.Reader, args ...string) runResult {
	t.Helper()
	return runKproduce(t, stdin, append([]string{"-b", brokersFlag(c)}, args...)...)
}

// topicRecordCount is the number of records stored in topic, summed over
// its partitions' high watermarks (0 when the topic does not exist).
func topicRecordCount(c *kfake.Cluster, topic string) int64 {
	var n int64
	for _, p := range c.PartitionInfos(topic) {
		n += p.HighWatermark - p.LogStartOffset
	}
	return n
}

// requireTopicEmpty checks that nothing was produced to topic.
func requireTopicEmpty(t testing.TB, c *kfake.Cluster, topic string) {
	t.Helper()
	require.Zero(t, topicRecordCount(c, topic), "records stored in %s", topic)
}

// consumeExactly consumes n records of topic and checks that the topic
// holds no more than that.
func consumeExactly(t testing.TB, c *kfake.Cluster, topic string, n int) []*kgo.Record {
	t.Helper()
	recs := consumeAll(t, c, topic, n)
	require.EqualValues(t, n, topicRecordCount(c, topic), "records stored in %s", topic)
	return recs
}

// byOffset orders records by partition, then offset.
func byOffset(recs []*kgo.Record) []*kgo.Record {
	out := append([]*kgo.Record(nil), recs...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out
}

// recordAt indexes records by "topic/partition@offset", the text report.
func recordAt(recs []*kgo.Record) map[string]*kgo.Record {
	m := make(map[string]*kgo.Record, len(recs))
	for _, r := range recs {
		m[fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset)] = r
	}
	return m
}

// recordByValue indexes records by their value, which tests keep unique.
func recordByValue(t testing.TB, recs []*kgo.Record) map[string]*kgo.Record {
	t.Helper()
	m := make(map[string]*kgo.Record, len(recs))
	for _, r := range recs {
		_, dup := m[string(r.Value)]
		require.False(t, dup, "value %q consumed twice", r.Value)
		m[string(r.Value)] = r
	}
	return m
}

// numberedLines returns n lines "PREFIX-i\n" for i in [0, n).
func numberedLines(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s-%d\n", prefix, i)
	}
	return b.String()
}

// e2eWriteFile writes data to a new file in a test directory and returns its
// path.
func e2eWriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

// jsonReport is one json delivery report, as printed.
type jsonReport struct {
	Source    string  `json:"source"`
	Record    int64   `json:"record"`
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Timestamp int64   `json:"timestamp"`
	Error     *string `json:"error"`
}

// parseJSONReports decodes every line of out as a json report, checking
// that each has exactly the documented keys, in order: the success shape,
// plus "error" last for a failure.
func parseJSONReports(t testing.TB, out string) []jsonReport {
	t.Helper()
	return parseJSONLines(t, out, []string{"source", "record", "topic", "partition", "offset", "timestamp"},
		func(r *jsonReport) bool { return r.Error != nil })
}

// parseJSONLines decodes every line of out as a T with no unknown field,
// checking that its keys are exactly keys, in order, plus "error" last
// when failed says the line is a failure.
func parseJSONLines[T any](t testing.TB, out string, keys []string, failed func(*T) bool) []T {
	t.Helper()
	var reps []T
	for _, l := range lines(out) {
		var rep T
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&rep), "line %q", l)
		want := slices.Clone(keys)
		if failed(&rep) {
			want = append(want, "error")
		}
		require.Equal(t, want, jsonKeys(t, l), "keys of %q", l)
		reps = append(reps, rep)
	}
	return reps
}

// jsonKeys returns the top-level keys of the JSON object line, in order.
func jsonKeys(t testing.TB, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// closedAddr returns a loopback address that refuses connections for the
// rest of the test (networktest.ClosedAddr).
func closedAddr(t testing.TB) string { return networktest.ClosedAddr(t) }

// produceRequests records every ProduceRequest the cluster receives,
// letting the cluster answer it as usual.
type produceRequests struct {
	mu   sync.Mutex
	reqs []*kmsg.ProduceRequest
}

// observeProduce starts recording c's ProduceRequests.
func observeProduce(c *kfake.Cluster) *produceRequests {
	o := &produceRequests{}
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		o.mu.Lock()
		o.reqs = append(o.reqs, req.(*kmsg.ProduceRequest))
		o.mu.Unlock()
		return nil, nil, false
	})
	return o
}

// all returns the requests recorded so far.
func (o *produceRequests) all() []*kmsg.ProduceRequest {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]*kmsg.ProduceRequest(nil), o.reqs...)
}

// batches counts the record batches of the recorded requests (one per
// partition of a request).
func (o *produceRequests) batches() int {
	n := 0
	for _, r := range o.all() {
		for _, tp := range r.Topics {
			n += len(tp.Partitions)
		}
	}
	return n
}

// runningKproduce is a kproduce run in progress, for tests that interact
// with it while it runs.
type runningKproduce struct {
	out, errOut lockedBuffer
	done        chan int
}

// startKproduce starts kproduce in-process with stdin and args.
func startKproduce(ctx context.Context, stdin io.Reader, args ...string) *runningKproduce {
	r := &runningKproduce{done: make(chan int, 1)}
	go func() { r.done <- cli.Execute(ctx, args, cmdutil.Streams{In: stdin, Out: &r.out, Err: &r.errOut}) }()
	return r
}

// waitStdout polls stdout until it holds want lines or the deadline
// passes; it returns those lines.
func (r *runningKproduce) waitStdout(t testing.TB, want int, within time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := lines(r.out.String())
		if len(got) >= want {
			return got
		}
		select {
		case code := <-r.done:
			r.done <- code
			t.Fatalf("kproduce exited with %d before printing %d reports; stdout %q stderr %q",
				code, want, r.out.String(), r.errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d reports on stdout within %s; stdout %q stderr %q", want, within, r.out.String(), r.errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait returns the exit status, failing the test if the run does not end
// within the deadline.
func (r *runningKproduce) wait(t testing.TB, within time.Duration) int {
	t.Helper()
	select {
	case code := <-r.done:
		return code
	case <-time.After(within):
		t.Fatalf("kproduce did not exit within %s; stderr %q", within, r.errOut.String())
		return -1
	}
}

// lineFeeder serves its chunks one per Read and records whether it was
// read past the last one it is allowed to serve.
type lineFeeder struct {
	mu       sync.Mutex
	chunks   [][]byte
	allowed  int // chunks that may be read
	served   int
	readPast bool
}

// Read serves the next chunk, or fails once the allowed chunks are spent.
func (c *lineFeeder) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.served >= c.allowed {
		c.readPast = true
		return 0, fmt.Errorf("read past chunk %d", c.allowed)
	}
	if c.served >= len(c.chunks) {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[c.served])
	if n < len(c.chunks[c.served]) {
		c.chunks[c.served] = c.chunks[c.served][n:]
		return n, nil
	}
	c.served++
	return n, nil
}

// wasReadPast reports whether a read went past the allowed chunks.
func (c *lineFeeder) wasReadPast() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readPast
}

// headerList returns a record's headers as "k=v" strings.
func headerList(r *kgo.Record) []string {
	out := make([]string, 0, len(r.Headers))
	for _, h := range r.Headers {
		out = append(out, h.Key+"="+string(h.Value))
	}
	return out
}

// assertNullable checks a key or value, telling null from empty; what
// names it in a failure.
func assertNullable(t testing.TB, want, got []byte, what string) {
	t.Helper()
	if want == nil {
		assert.Nil(t, got, "%s: want null", what)
		return
	}
	if assert.NotNil(t, got, "%s: want %q, got null", what, want) {
		assert.True(t, bytes.Equal(want, got), "%s: want %q, got %q", what, want, got)
	}
}

// defaultTopicConfig writes a config file whose topic is topic: a default
// for records that name none (-t would beat every record's own).
func defaultTopicConfig(t testing.TB, topic string) string {
	t.Helper()
	return e2eWriteFile(t, t.TempDir(), "kproduce.yaml", []byte("topic: "+topic+"\n"))
}
