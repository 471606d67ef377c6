package producecmd_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestFencedChunkSaysWhy runs a chunked transactional load and, once its
// first chunk is committed and the second one's first records are at the
// broker, initializes another producer with the same transactional id
// (franz-go): the second chunk fails, and every report and the first line
// say that another producer with that id took over, not the
// INVALID_TXN_STATE kfake answers its records with.
func TestFencedChunkSaysWhy(t *testing.T) {
	c := oneBrokerCluster(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	run := startKproduce(context.Background(), pr, "-b", kafkatest.Brokers(c), "-t", "t", "-p", "0", "--transactional-id", "fenced",
		"--transaction-records", "5", "--linger", "0s", "-o", "json")
	_, err := io.WriteString(pw, strings.Repeat("a\n", 5))
	require.NoError(t, err)
	kafkatest.ConsumeAll(t, c.ListenAddrs(), "t", 5, kafkatest.ReadCommitted()) // the first chunk is committed
	_, err = io.WriteString(pw, strings.Repeat("b\n", 3))                       // the second chunk is open
	require.NoError(t, err)
	waitUncommitted(t, c.ListenAddrs(), "t", 8)
	other, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("fenced"))
	require.NoError(t, err)
	defer other.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, other.BeginTransaction()) // initializes the producer id: fences the load
	require.NoError(t, other.ProduceSync(ctx, &kgo.Record{Topic: "t", Partition: 1, Value: []byte("other")}).FirstErr())
	_, err = io.WriteString(pw, strings.Repeat("b\n", 2))
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	code := run.Wait(t, kafkatest.RunDeadline)
	r := kafkatest.Result{Stdout: run.Stdout.String(), Stderr: run.Stderr.String(), Code: code}
	t.Logf("stderr:\n%s", r.Stderr)
	assert.Equal(t, cmdutil.ExitFailed, r.Code)
	lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
	require.NotEmpty(t, lines)
	first := lines[0]
	assert.Contains(t, first, `another producer uses transactional id "fenced"`, "the first line says why")
	assert.NotContains(t, first, "INVALID_TXN_STATE")
	// The records of the second chunk read before the run stopped reading
	// (at least the three at the broker) each say why they failed.
	failed := strings.Count(r.Stdout, `"error":`)
	assert.GreaterOrEqual(t, failed, 3)
	assert.Equal(t, failed, strings.Count(r.Stdout, `another producer uses transactional id \"fenced\"`),
		fmt.Sprintf("every failed record says why:\n%s", r.Stdout))
}

// waitUncommitted waits until partition 0 of topic holds at least n
// records, read_uncommitted.
func waitUncommitted(t *testing.T, addrs []string, topic string, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for got := 0; got < n; {
		fetches := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "%d of %d records at the broker", got, n)
		got += len(fetches.Records())
	}
}
