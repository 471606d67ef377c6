package producecmd_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestResumeRefusesChangedOptions commits half a load (--count), then
// resumes it with one option changed: every option that decides where a
// record goes or what it holds is refused, exit 2, naming the option, its
// earlier and its new value, and nothing more is produced; the codec and
// batching may change, and the load then completes exactly once.
func TestResumeRefusesChangedOptions(t *testing.T) {
	c := oneBrokerCluster(t)
	file := writeFile(t, "in.txt", "k:1\nk:2\nk:3\nk:4\n")
	refused := []struct {
		option string
		args   []string
	}{
		{"topic", []string{"-t", "other"}},
		{"partition", []string{"-p", "1"}},
		{"partitioner", []string{"--partitioner", "round-robin"}},
		{"key", []string{"-k", "K"}},
		{"key-delimiter", []string{"-K", ":"}},
		{"header", []string{"-H", "a=b"}},
		{"header-delimiter", []string{"--header-delimiter", "|"}},
		{"header-separator", []string{"--header-separator", ";"}},
		{"header-key-separator", []string{"--header-key-separator", "="}},
		{"require-delimiters", []string{"--require-delimiters"}},
		{"null", []string{"--null", "NULL"}},
		{"tombstone", []string{"-Z"}},
		{"format", []string{"-f", "json"}},
		{"delimiter", []string{"-D", ";"}},
		{"skip-empty", []string{"--skip-empty"}},
	}
	for i, tt := range refused {
		t.Run(tt.option, func(t *testing.T) {
			topic := fmt.Sprintf("ro-%d", i)
			base := []string{"-b", kafkatest.Brokers(c), "-p", "0", "--transactional-id", "ro-" + tt.option, "--resume", "--resume-topic", "cp",
				"-o", "none", "--transaction-records", "1"}
			r := runKproduceCtx(t, context.Background(), nil, append(base, "-t", topic, "--count", "2", file)...)
			require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
			require.Equal(t, 2, countCommitted(t, c, topic))

			args := append(append(base, "-t", topic), tt.args...)
			r = runKproduceCtx(t, context.Background(), nil, append(args, file)...)
			assert.Equal(t, cmdutil.ExitUsage, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, "--"+tt.option+" was ", "the option is named")
			assert.Contains(t, r.Stderr, "in the earlier run, ", "with its earlier and its new value")
			assert.Contains(t, r.Stderr, "nothing was produced")
			assert.Equal(t, 2, countCommitted(t, c, topic), "nothing more was produced")
		})
	}
	t.Run("codec and batching may change", func(t *testing.T) {
		base := []string{"-b", kafkatest.Brokers(c), "-t", "ro-ok", "-p", "0", "--transactional-id", "ro-ok", "--resume", "--resume-topic", "cp",
			"-o", "none", "--transaction-records", "1"}
		r := runKproduceCtx(t, context.Background(), nil, append(base, "--count", "2", file)...)
		require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
		r = runKproduceCtx(t, context.Background(), nil, append(base, "-z", "gzip", "--linger", "50ms", "--batch-size", "64KiB", "--acks", "all", file)...)
		require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "resumed after "+file+":2")
		assert.Equal(t, 4, countCommitted(t, c, "ro-ok"))
	})
}

// TestResumeOptionsInTheCheckpoint checks that the checkpoint records
// the resume options of the run.
func TestResumeOptionsInTheCheckpoint(t *testing.T) {
	c := oneBrokerCluster(t)
	r := runKproduceCtx(t, context.Background(), strings.NewReader("v\n"), "-b", kafkatest.Brokers(c), "-t", "t", "-k", "K", "-H", "a=b", "--transactional-id", "rc", "--resume", "--resume-topic", "cp2", "-o", "none")
	require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
	recs := kafkatest.ConsumeAll(t, c.ListenAddrs(), "cp2", 1, kafkatest.ReadCommitted())
	for _, want := range []string{`"topic":"t"`, `"key":"K"`, `"header":"\"a=b\""`, `"partitioner":"murmur2"`} {
		assert.Contains(t, string(recs[len(recs)-1].Value), want)
	}
}
