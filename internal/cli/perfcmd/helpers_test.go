package perfcmd_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/perfcmd"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestMain isolates the tests from the machine's kproduce config file and
// environment.
func TestMain(m *testing.M) { os.Exit(kafkatest.RunIsolated(m)) }

// kafka-producer-perf-test's formats, as its users' scripts read them.
const (
	windowFormat = "%d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency."
	totalFormat  = "%d records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th."
	steadyFormat = "%d steady state records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th."
)

// formatRE is a printf format as a regular expression matching a whole
// line, each verb a group: %d an integer, %f six decimals, %.Nf N.
func formatRE(format string) *regexp.Regexp {
	verbs := []struct{ verb, re string }{
		{"%d", `(-?\d+)`}, {"%f", `(\d+\.\d{6})`}, {"%.1f", `(\d+\.\d)`}, {"%.2f", `(\d+\.\d\d)`},
	}
	var b strings.Builder
	b.WriteString("(?m)^")
	for rest := format; rest != ""; {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		rest = rest[i:]
		n := len(rest)
		for _, v := range verbs {
			if strings.HasPrefix(rest, v.verb) {
				b.WriteString(v.re)
				rest = rest[len(v.verb):]
				break
			}
		}
		if len(rest) == n {
			panic("unknown verb in " + format)
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// result is what one run printed and returned.
type result struct {
	code           int
	stdout, stderr string
}

// perf runs kproduce perf in-process with args, as the kproduce binary
// does (its command line rewritten for the flags of several values); a
// run that does not end within two minutes fails the test.
func perf(t *testing.T, args ...string) result {
	t.Helper()
	return perfCtx(t, context.Background(), args...)
}

// perfCtx is perf with ctx standing in for the signals. Its stdout and
// stderr are files, which the run's goroutines may write at once.
func perfCtx(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	out, errOut := filepath.Join(dir, "stdout"), filepath.Join(dir, "stderr")
	streams := cmdutil.Streams{In: strings.NewReader(""), Out: createFile(t, out), Err: createFile(t, errOut)}
	done := make(chan int, 1)
	go func() { done <- cli.Execute(ctx, append([]string{perfcmd.Name}, args...), streams) }()
	read := func(name string) string {
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		return string(b)
	}
	select {
	case code := <-done:
		return result{code: code, stdout: read(out), stderr: read(errOut)}
	case <-time.After(2 * time.Minute):
		t.Fatalf("kproduce perf %q did not end; stderr so far:\n%s", args, read(errOut))
		return result{}
	}
}

// createFile creates a file closed when the test ends.
func createFile(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Create(name)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// newCluster starts a kfake cluster for one test: one broker and a topic
// "t" of 3 partitions (others are created on first use), unless opts say
// otherwise.
func newCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	base := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(3, "t"), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3)}
	c, err := kfake.NewCluster(append(base, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// brokers is the -b value of a cluster.
func brokers(c *kfake.Cluster) string { return strings.Join(c.ListenAddrs(), ",") }

// consume reads n records of topic back (read_committed: only committed
// transactions), failing the test when fewer arrive.
func consume(t *testing.T, c *kfake.Cluster, topic string, n int) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	recs, err := kafkatest.Consume(ctx, n, kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxBytes(50<<20))
	require.NoError(t, err)
	require.Len(t, recs, n, "exactly the records produced")
	return recs
}

// summary parses the JSON summary, the last line of a -o json run.
func summary(t *testing.T, stdout string) perfcmd.Result {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var res perfcmd.Result
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &res), "stdout:\n%s", stdout)
	require.Equal(t, "summary", res.Type)
	return res
}
