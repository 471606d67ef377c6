package cli

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

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a run.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// result is what one in-process run printed and returned.
type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runCtx runs kproduce in-process with ctx standing in for the signals
// (cancelling it is what the first SIGINT or SIGTERM does); a run that
// does not end within two minutes fails the test.
func runCtx(t testing.TB, ctx context.Context, stdin io.Reader, args ...string) result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errOut syncBuffer
	done := make(chan int, 1)
	start := time.Now()
	go func() { done <- Execute(ctx, args, cmdutil.Streams{In: stdin, Out: &out, Err: &errOut}) }()
	select {
	case code := <-done:
		return result{code: code, stdout: out.String(), stderr: errOut.String(), took: time.Since(start)}
	case <-time.After(2 * time.Minute):
		t.Fatalf("kproduce %q did not end; stderr so far:\n%s", args, errOut.String())
		return result{}
	}
}

// newCluster starts a kfake cluster on loopback for one test: one broker,
// a 3-partition topic "t", unless opts say otherwise.
func newCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	base := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(3, "t"), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3)}
	c, err := kfake.NewCluster(append(base, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// brokers is the -b value of a cluster.
func brokers(c *kfake.Cluster) string { return strings.Join(c.ListenAddrs(), ",") }
