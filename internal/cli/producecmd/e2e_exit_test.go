package producecmd_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestE2EExitOKWhenAllDelivered checks exit 0, one report per record and no
// summary when every record is delivered.
func TestE2EExitOKWhenAllDelivered(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\nb\nc"), "-t", "t")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Len(t, kafkatest.Lines(res.Stdout), 3)
	assert.Empty(t, res.Stderr)
	kafkatest.ConsumeExactly(t, c, "t", 3)
}

// TestE2EUnknownPartitionFailsEachRecord checks that -p 99 on a 6-partition
// topic fails every record on its own, with its position, and exits 1.
func TestE2EUnknownPartitionFailsEachRecord(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\nb\nc\n"), "-t", "t", "-p", "99")
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Empty(t, res.Stdout)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 4, res.Stderr)
	for i := range 3 {
		assert.Regexp(t, fmt.Sprintf(`^error: -:%d: t/99: .*partition.*\S$`, i+1), errs[i])
	}
	assert.Equal(t, "0 delivered, 3 failed", errs[3])
	kafkatest.RequireEmpty(t, c, "t")
}

// TestE2EPartialFailureSummary checks the summary when some records of a
// run are delivered and others fail: an explicit partition per JSON
// record, one of them unknown.
func TestE2EPartialFailureSummary(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := `{"value":"ok1","partition":1}
{"value":"bad","partition":99}
{"value":"ok2","partition":5}
`
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-f", "json")
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Len(t, kafkatest.Lines(res.Stdout), 2)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 2, res.Stderr)
	assert.Regexp(t, `^error: -:2: t/99: `, errs[0])
	assert.Equal(t, "2 delivered, 1 failed", errs[1])
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 2))
	assert.EqualValues(t, 1, recs["ok1"].Partition)
	assert.EqualValues(t, 5, recs["ok2"].Partition)
}

// TestE2EUsageErrorsProduceNothing checks exit 2, a message on stderr and an
// empty topic for what is wrong before connecting.
func TestE2EUsageErrorsProduceNothing(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	present := kafkatest.WriteFile(t, dir, "present.txt", []byte("x\n"))
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown flag", []string{"-t", "t", "--no-such-flag"}, "no-such-flag"},
		{"bad acks", []string{"-t", "t", "-a", "2"}, "acks"},
		{"bad compression", []string{"-t", "t", "-z", "brotli"}, "compression"},
		{"bad format", []string{"-t", "t", "-f", "xml"}, "format"},
		{"bad partitioner", []string{"-t", "t", "--partitioner", "sticky2"}, "partitioner"},
		{"bad size", []string{"-t", "t", "--batch-size", "12 parsecs"}, "batch-size"},
		{"bad duration", []string{"-t", "t", "--linger", "soon"}, "linger"},
		{"bad template", []string{"-t", "t", "-o", "%q"}, "output"},
		{"no topic", []string{}, "topic"},
		{"idempotence with acks 1", []string{"-t", "t", "-a", "1", "--idempotence=true"}, "idempotence"},
		{"missing file", []string{"-t", "t", present, dir + "/missing.txt"}, "missing.txt"},
		{"directory", []string{"-t", "t", present, dir}, "directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := produceTo(t, c, strings.NewReader("a\nb\n"), tc.args...)
			assert.Equal(t, 2, res.Code, "stderr: %s", res.Stderr)
			assert.Empty(t, res.Stdout)
			assert.Contains(t, res.Stderr, tc.want)
			assert.True(t, strings.HasPrefix(res.Stderr, "error: "), "stderr: %s", res.Stderr)
		})
	}
	kafkatest.RequireEmpty(t, c, "t")
}

// TestE2EUnreachableClusterFailsEveryRecord checks that records meant for a
// cluster that cannot be reached each fail with their position once the
// delivery timeout passes, with exit 1.
func TestE2EUnreachableClusterFailsEveryRecord(t *testing.T) {
	t.Parallel()
	start := time.Now()
	res := runKproduce(t, strings.NewReader("a\nb\nc\n"), "-b", networktest.ClosedAddr(t), "-t", "t",
		"--delivery-timeout", "1500ms", "--log-level", "error")
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Less(t, time.Since(start), 30*time.Second, "bounded by the delivery timeout")
	assert.Empty(t, res.Stdout)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 4, res.Stderr)
	for i := range 3 {
		assert.Regexp(t, regexp.MustCompile(fmt.Sprintf(`^error: -:%d: t/-1: .+`, i+1)), errs[i])
	}
	assert.Equal(t, "0 delivered, 3 failed", errs[3])
}
