package producecmd_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// The tests of this package's _test files run the produce command
// end to end, in-process, as kproduce runs it: through internal/cli's
// Execute, which maps the command's error to the exit status and prints
// it, with the streams of the test. They produce to kfake clusters (and
// fake peers, registries, KDCs) and read the records back with franz-go.

// streamWait bounds the wait for a run to reach a point a test needs.
const streamWait = 10 * time.Second

// oneBrokerCluster starts a cluster of one broker and, unless opts say
// otherwise, a 3-partition topic "t".
func oneBrokerCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	base := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(3, "t"), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3)}
	return kafkatest.NewCluster(t, append(base, opts...)...)
}

// runKproduce runs kproduce in-process with stdin and args, as main does,
// with a deadline so that a hang fails the test instead of the run.
func runKproduce(t testing.TB, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return kafkatest.Run(t, context.Background(), cli.Execute, stdin, args...)
}

// runKproduceCtx is runKproduce with a context standing in for signals:
// cancelling it is what the first SIGINT does.
func runKproduceCtx(t testing.TB, ctx context.Context, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return kafkatest.Run(t, ctx, cli.Execute, stdin, args...)
}

// produceTo runs kproduce against cluster c with stdin and args, adding -b.
func produceTo(t testing.TB, c *kfake.Cluster, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return runKproduce(t, stdin, append([]string{"-b", kafkatest.Brokers(c)}, args...)...)
}

// startKproduce starts kproduce in-process with stdin and args, for a
// test that interacts with the run.
func startKproduce(ctx context.Context, stdin io.Reader, args ...string) *kafkatest.Running {
	return kafkatest.Start(ctx, cli.Execute, stdin, args...)
}

// recordAt indexes records by "topic/partition@offset", the text report.
func recordAt(recs []*kgo.Record) map[string]*kgo.Record {
	m := make(map[string]*kgo.Record, len(recs))
	for _, r := range recs {
		m[fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset)] = r
	}
	return m
}

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
	return kafkatest.WriteFile(t, t.TempDir(), "kproduce.yaml", []byte("topic: "+topic+"\n"))
}

// writeFile writes content to a file name of a new directory of the test
// and returns its path.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	return kafkatest.WriteFile(t, t.TempDir(), name, []byte(content))
}
