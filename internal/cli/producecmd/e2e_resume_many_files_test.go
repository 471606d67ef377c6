package producecmd_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// manyFilesLoad is a resumable load of n one-line files, the line of file
// i being i, in chunks of 1,000 records, to topic t (one partition) with
// its checkpoints in cp.
func manyFilesLoad(t *testing.T, c *kfake.Cluster, n int, id string, extra ...string) []string {
	t.Helper()
	files := kafkatest.WriteFiles(t, t.TempDir(), n, func(i int) string { return fmt.Sprintf("%d\n", i) })
	args := append([]string{"-b", kafkatest.Brokers(c), "-t", id, "-p", "0", "--transactional-id", id, "--resume", "--resume-topic", "cp",
		"--transaction-records", "1000", "-o", "none"}, extra...)
	return append(args, files...)
}

// TestResumeTenThousandFiles loads 10,000 files with --resume: stopped
// after 5,500 records (--count), then resumed, every file's line is in the
// topic once, in order, and every checkpoint stays a few kB (each used to
// hold an entry per file: past about 5,000 files of these names it was
// larger than a request may be, and the load failed there, its earlier
// chunks committed, again at every resumption).
func TestResumeTenThousandFiles(t *testing.T) {
	t.Parallel()
	const n = 10_000
	c := oneBrokerCluster(t)
	args := manyFilesLoad(t, c, n, "many")
	first := append(append([]string{"--count", "5500"}, args[:len(args)-n]...), args[len(args)-n:]...)
	r := runKproduceCtx(t, context.Background(), nil, first...)
	require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
	assert.Equal(t, "6 transactions committed: 5500 records\n", r.Stderr)

	r = runKproduceCtx(t, context.Background(), nil, args...)
	require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "/f005499:1: 5,500 records committed by an earlier run (6 transactions), ")
	assert.Contains(t, r.Stderr, "5 transactions committed: 4500 records\n")
	recs := kafkatest.ByOffset(kafkatest.ConsumeAll(t, c.ListenAddrs(), "many", n, kafkatest.ReadCommitted()))
	require.Len(t, recs, n)
	for i, rec := range recs {
		require.Equal(t, strconv.Itoa(i), string(rec.Value), "record %d", i)
	}
	cps := kafkatest.ConsumeAll(t, c.ListenAddrs(), "cp", 11, kafkatest.ReadCommitted())
	for _, cp := range cps {
		assert.Less(t, len(cp.Value), 6000, "a checkpoint of up to 10,000 files")
	}
	last := string(cps[len(cps)-1].Value)
	assert.Contains(t, last, `"folded":{"count":9999,`)
	assert.Contains(t, last, `"done":true`)

	r = runKproduceCtx(t, context.Background(), nil, args...)
	require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "nothing left to do: the earlier runs loaded all of the input (10,000 records in 11 transactions")
}

// TestResumeManyFilesOneChanged: a file changed among the 8,000 files an
// earlier run read to their end is refused, before anything is produced,
// naming the range of 125 files it is in.
func TestResumeManyFilesOneChanged(t *testing.T) {
	t.Parallel()
	const n = 8_000
	c := oneBrokerCluster(t)
	args := manyFilesLoad(t, c, n, "changed")
	files := args[len(args)-n:]
	first := append([]string{"--count", "3000"}, args...)
	r := runKproduceCtx(t, context.Background(), nil, first...)
	require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)

	require.NoError(t, os.WriteFile(files[1234], []byte("1234 changed\n"), 0o600))
	r = runKproduceCtx(t, context.Background(), nil, args...)
	assert.Equal(t, cmdutil.ExitUsage, r.Code, r.Stderr)
	assert.True(t, strings.HasPrefix(r.Stderr, fmt.Sprintf("error: --resume: %s to %s (inputs 1126 to 1250): not what the earlier run read to their end: ",
		files[1125], files[1249])), r.Stderr)
	assert.Contains(t, r.Stderr, "; nothing was produced\n")
	assert.Equal(t, 3000, countCommitted(t, c, "changed"))
}

// TestResumeCheckpointTooLarge: a load whose checkpoint could exceed
// --max-request-size is refused before anything is produced, naming the
// limit, however far it would have got.
func TestResumeCheckpointTooLarge(t *testing.T) {
	t.Parallel()
	c := oneBrokerCluster(t)
	args := manyFilesLoad(t, c, 2_000, "large", "--max-request-size", "4KiB", "--max-record-bytes", "1KiB")
	r := runKproduceCtx(t, context.Background(), nil, args...)
	assert.Equal(t, cmdutil.ExitUsage, r.Code, r.Stderr)
	assert.Regexp(t, `^error: --resume: the checkpoint of this load may be too large: up to [0-9]+ bytes in its batch `+
		`\(options, transactional id and input names included\), more than --max-request-size 4096: raise --max-request-size`, r.Stderr)
	assert.Contains(t, r.Stderr, "; nothing was produced\n")
	assert.Zero(t, countCommitted(t, c, "large"))
	assert.Zero(t, countCommitted(t, c, "cp"))

	ok := manyFilesLoad(t, c, 2_000, "large", "--max-request-size", "8KiB", "--max-record-bytes", "1KiB")
	r = runKproduceCtx(t, context.Background(), nil, ok...)
	require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
	assert.Equal(t, 2000, countCommitted(t, c, "large"))
}
