package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// e2eCluster starts a kfake cluster on loopback for one test: 3 brokers
// and, unless opts say otherwise, a 6-partition topic "t".
func e2eCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	base := []kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(6, "t"), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(6)}
	c, err := kfake.NewCluster(append(base, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// brokersFlag is the -b value for a cluster.
func brokersFlag(c *kfake.Cluster) string { return strings.Join(c.ListenAddrs(), ",") }

// runResult is what one in-process kproduce run printed and returned.
type runResult struct {
	Stdout, Stderr string
	Code           int
}

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a run.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runKproduce runs the whole command in-process with stdin and args, as
// main does, with a deadline so a hang fails the test instead of the run.
func runKproduce(t testing.TB, stdin io.Reader, args ...string) runResult {
	t.Helper()
	return runKproduceCtx(t, context.Background(), stdin, args...)
}

// runKproduceCtx is runKproduce with a context standing in for signals:
// cancelling it is what the first SIGINT does.
func runKproduceCtx(t testing.TB, ctx context.Context, stdin io.Reader, args ...string) runResult {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() { done <- cli.Execute(ctx, args, cmdutil.Streams{In: stdin, Out: &out, Err: &errOut}) }()
	select {
	case code := <-done:
		return runResult{Stdout: out.String(), Stderr: errOut.String(), Code: code}
	case <-time.After(2 * time.Minute):
		t.Fatalf("kproduce %v did not finish; stderr so far:\n%s", args, errOut.String())
		return runResult{}
	}
}

// consumeAll reads every record of topic from the start until n records
// arrived (or the deadline passes), with franz-go's kgo consumer.
func consumeAll(t testing.TB, c *kfake.Cluster, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var recs []*kgo.Record
	for len(recs) < n {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		for _, fe := range fetches.Errors() {
			t.Logf("fetch error %s/%d: %v", fe.Topic, fe.Partition, fe.Err)
		}
		recs = append(recs, fetches.Records()...)
	}
	require.Len(t, recs, n, "records consumed from %s", topic)
	return recs
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
