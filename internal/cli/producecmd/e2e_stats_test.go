package producecmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/producecmd"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// readStatsJSON decodes a --stats-json file (see kafkatest.ReadStatsJSON).
func readStatsJSON(t *testing.T, path string) producecmd.StatsSummary {
	t.Helper()
	var sum producecmd.StatsSummary
	kafkatest.ReadStatsJSON(t, path, &sum)
	return sum
}

// wireSize is the size of a Produce request's frame as kmsg encodes it
// (size prefix, header with the client id, body).
func wireSize(req *kmsg.ProduceRequest) int {
	return len(kmsg.NewRequestFormatter(kmsg.FormatterClientID("kproduce")).AppendRequest(nil, req, 0))
}

// TestE2EStatsMatchWhatWasProduced: the summary's counts agree with what
// the broker received (requests, batches and their bytes, re-encoded by
// kmsg) and stored (read back with kgo), and the text and JSON forms say
// the same.
func TestE2EStatsMatchWhatWasProduced(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	reqs := observeProduce(c)
	const n = 500
	input := kafkatest.NumberedLines("stat", n)
	out := filepath.Join(t.TempDir(), "stats.json")
	res := produceTo(t, c, strings.NewReader(input), "-t", "t", "-o", "none", "--batch-size", "2KiB",
		"--stats", "--stats-json", out)
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ConsumeExactly(t, c, "t", n)

	sum := readStatsJSON(t, out)
	assert.EqualValues(t, len(recs), sum.RecordsDelivered)
	assert.Zero(t, sum.RecordsFailed)
	assert.EqualValues(t, len(input)-n, sum.RecordBytes, "the values without their newlines")
	assert.EqualValues(t, len(reqs.all()), sum.ProduceRequests)
	assert.EqualValues(t, reqs.batches(), sum.Batches)
	assert.Greater(t, sum.Batches, int64(1), "2 KiB batches")
	assert.GreaterOrEqual(t, sum.Batches, sum.ProduceRequests)
	wire := 0
	for _, r := range reqs.all() {
		wire += wireSize(r)
	}
	assert.EqualValues(t, wire, sum.WireBytes)
	assert.InDelta(t, float64(sum.RecordsDelivered)/float64(sum.Batches), sum.RecordsPerBatch, 0.001)
	assert.Zero(t, sum.Retries)
	assert.Zero(t, sum.BatchSplits)
	require.Positive(t, sum.WallTimeMs)
	assert.InDelta(t, float64(n)/(sum.WallTimeMs/1000), sum.RecordsPerSec, sum.RecordsPerSec*0.01)
	assert.InDelta(t, float64(sum.RecordBytes)/1e6/(sum.WallTimeMs/1000), sum.MBPerSec, 0.001+sum.MBPerSec*0.01)
	l := sum.LatencyMs
	require.NotNil(t, l.P50)
	assert.Positive(t, *l.P50)
	assert.LessOrEqual(t, *l.P50, *l.P99)
	assert.LessOrEqual(t, *l.P99, *l.Max)
	assert.Less(t, *l.Max, sum.WallTimeMs, "no record took longer than the run")

	assert.Contains(t, res.Stderr, "stats: records   500 delivered, 0 failed\n")
	assert.Contains(t, res.Stderr, "stats: requests  ")
	assert.Contains(t, res.Stderr, "stats: latency   p50 ")
	for _, l := range kafkatest.Lines(res.Stderr) {
		assert.True(t, strings.HasPrefix(l, "stats: "), "only the summary on stderr: %q", l)
	}
}

// TestE2EStatsJSONCountsFailures: records failed on input (too large to
// read), refused by the broker (over its message.max.bytes, found after
// splitting their batch) and delivered are all counted.
func TestE2EStatsJSONCountsFailures(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "3000"}))
	big := strings.Repeat("b", 3500)  // over the broker's limit
	huge := strings.Repeat("h", 9000) // over --max-record-bytes
	var in strings.Builder
	for i := range 40 {
		switch i {
		case 10:
			in.WriteString(big + "\n")
		case 20:
			in.WriteString(huge + "\n")
		default:
			in.WriteString(kafkatest.NumberedLines("ok", 1))
		}
	}
	out := filepath.Join(t.TempDir(), "stats.json")
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-p", "0", "-o", "none",
		"--max-record-bytes", "8000", "--linger", "50ms", "--stats-json", out)
	require.Equal(t, 1, res.Code, res.Stderr)
	kafkatest.ConsumeExactly(t, c, "t", 38)
	sum := readStatsJSON(t, out)
	assert.EqualValues(t, 38, sum.RecordsDelivered)
	assert.EqualValues(t, 2, sum.RecordsFailed)
	assert.EqualValues(t, 38*len("ok-0")+len(big), sum.RecordBytes, "records handed to the producer")
	assert.Positive(t, sum.BatchSplits, "the batch holding the big record was split")
	assert.GreaterOrEqual(t, sum.Batches, 1+2*sum.BatchSplits)
	assert.NotContains(t, res.Stderr, "stats: ", "no --stats: no text summary")
}

// TestE2EStatsJSONOnStdout: --stats-json - writes the object on stdout,
// after the reports.
func TestE2EStatsJSONOnStdout(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\nb\n"), "-t", "t", "-o", "none", "--stats-json", "-")
	require.Equal(t, 0, res.Code, res.Stderr)
	path := filepath.Join(t.TempDir(), "stdout.json")
	require.NoError(t, os.WriteFile(path, []byte(res.Stdout), 0o600))
	sum := readStatsJSON(t, path)
	assert.EqualValues(t, 2, sum.RecordsDelivered)
}

// TestE2EStatsJSONUnwritable: a --stats-json path that cannot be created
// is a usage error before anything is sent.
func TestE2EStatsJSONUnwritable(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\n"), "-t", "t", "--stats-json", filepath.Join(t.TempDir(), "no", "such", "dir.json"))
	assert.Equal(t, cmdutil.ExitUsage, res.Code)
	assert.Contains(t, res.Stderr, "error: --stats-json: open ")
	kafkatest.RequireEmpty(t, c, "t")
}

// TestE2ENoStatsByDefault: without --stats nothing is added to stderr.
func TestE2ENoStatsByDefault(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\n"), "-t", "t", "-o", "none")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr)
}
