package producecmd_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestE2EJSONReportsOnSuccess checks the json report of every delivered
// record: its exact keys, its position, and the partition, offset and
// timestamp of the record found in the topic.
func TestE2EJSONReportsOnSuccess(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	const n = 200
	res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("v", n)), "-t", "t", "-o", "json")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr)
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, n)
	at := recordAt(kafkatest.ConsumeExactly(t, c, "t", n))
	seen := map[int64]bool{}
	for _, rep := range reps {
		assert.Nil(t, rep.Error)
		assert.Equal(t, "-", rep.Source)
		assert.Equal(t, "t", rep.Topic)
		require.False(t, seen[rep.Record], "record %d reported twice", rep.Record)
		seen[rep.Record] = true
		r := at[fmt.Sprintf("t/%d@%d", rep.Partition, rep.Offset)]
		require.NotNil(t, r, "report %+v names no stored record", rep)
		assert.Equal(t, fmt.Sprintf("v-%d", rep.Record-1), string(r.Value))
		assert.Equal(t, r.Timestamp.UnixMilli(), rep.Timestamp)
	}
	assert.Len(t, seen, n)
}

// TestE2EJSONReportsOnFailure checks the json failure shape: every outcome
// on stdout, "error" last, -1 for what is unknown, and only the summary on
// stderr.
func TestE2EJSONReportsOnFailure(t *testing.T) {
	t.Parallel()
	t.Run("unknown partition", func(t *testing.T) {
		t.Parallel()
		c := kafkatest.ProducerCluster(t)
		res := produceTo(t, c, strings.NewReader("a\nb\n"), "-t", "t", "-p", "99", "-o", "json")
		require.Equal(t, 1, res.Code, res.Stderr)
		assert.Equal(t, "0 delivered, 2 failed\n", res.Stderr)
		reps := kafkatest.ParseJSONReports(t, res.Stdout)
		require.Len(t, reps, 2)
		for i, rep := range reps {
			assert.Equal(t, kafkatest.JSONReport{Source: "-", Record: int64(i + 1), Topic: "t", Partition: 99,
				Offset: -1, Timestamp: -1, Error: rep.Error}, rep)
			require.NotNil(t, rep.Error)
			assert.Contains(t, *rep.Error, "partition")
		}
		kafkatest.RequireEmpty(t, c, "t")
	})
	t.Run("unreachable cluster", func(t *testing.T) {
		t.Parallel()
		res := runKproduce(t, strings.NewReader("a\n"), "-b", networktest.ClosedAddr(t), "-t", "t", "-o", "json",
			"--delivery-timeout", "1s", "--log-level", "error")
		require.Equal(t, 1, res.Code, res.Stderr)
		assert.Equal(t, "0 delivered, 1 failed\n", res.Stderr)
		reps := kafkatest.ParseJSONReports(t, res.Stdout)
		require.Len(t, reps, 1)
		assert.Equal(t, int32(-1), reps[0].Partition)
		assert.Equal(t, int64(-1), reps[0].Offset)
		require.NotNil(t, reps[0].Error)
		assert.NotEmpty(t, *reps[0].Error)
	})
	t.Run("mixed", func(t *testing.T) {
		t.Parallel()
		c := kafkatest.ProducerCluster(t)
		in := "{\"value\":\"good\"}\n{\"value\":\n{\"value\":\"also good\"}\n"
		res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-f", "json", "-o", "json")
		require.Equal(t, 1, res.Code, res.Stderr)
		assert.Equal(t, "2 delivered, 1 failed\n", res.Stderr)
		reps := kafkatest.ParseJSONReports(t, res.Stdout)
		require.Len(t, reps, 3)
		failed := 0
		for _, rep := range reps {
			if rep.Error != nil {
				failed++
				assert.EqualValues(t, 2, rep.Record)
				assert.Equal(t, int64(-1), rep.Offset)
			}
		}
		assert.Equal(t, 1, failed)
		kafkatest.ConsumeExactly(t, c, "t", 2)
	})
}

// TestE2ETemplateReports checks every template directive and escape against
// the stored records, and that failures go to stderr in the text format.
func TestE2ETemplateReports(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := "k1=v1\nk2=v2\nnokey\n"
	tmpl := `%t|%p|%o|%d|%k|%v|%s|%n|%e\t100%%\n`
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-K", "=", "-o", tmpl)
	require.Equal(t, 0, res.Code, res.Stderr)
	require.True(t, strings.HasSuffix(res.Stdout, "\t100%\n"), "stdout %q", res.Stdout)
	outs := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	require.Len(t, outs, 3, res.Stdout)
	at := recordAt(kafkatest.ConsumeExactly(t, c, "t", 3))
	for _, line := range outs {
		body, ok := strings.CutSuffix(line, "\t100%")
		require.True(t, ok, "line %q", line)
		f := strings.Split(body, "|")
		require.Len(t, f, 9, "line %q", line)
		r := at[fmt.Sprintf("%s/%s@%s", f[0], f[1], f[2])]
		require.NotNil(t, r, "line %q names no stored record", line)
		assert.Equal(t, strconv.FormatInt(r.Timestamp.UnixMilli(), 10), f[3])
		assert.Equal(t, string(r.Key), f[4])
		assert.Equal(t, string(r.Value), f[5])
		assert.Equal(t, "-", f[6])
		n, err := strconv.Atoi(f[7])
		require.NoError(t, err)
		assert.Equal(t, strings.Split(in, "\n")[n-1], joinKV(r.Key, r.Value), "record number %d", n)
		assert.Empty(t, f[8], "no error for a delivered record")
	}

	res = produceTo(t, c, strings.NewReader("x\n"), "-t", "t", "-p", "99", "-o", "%p@%o\n")
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.Regexp(t, `^error: -:1: t/99: .+\n0 delivered, 1 failed\n$`, res.Stderr)
}

// joinKV rebuilds an input line "k=v" (or "v" without a key).
func joinKV(k, v []byte) string {
	if k == nil {
		return string(v)
	}
	return string(k) + "=" + string(v)
}

// TestE2ETemplateWithoutNewline checks that a template gets no newline of
// its own.
func TestE2ETemplateWithoutNewline(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\nb\nc\n"), "-t", "t", "-p", "4", "-o", "[%o]")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "[0][1][2]", res.Stdout)
}

// TestE2EOutputNone checks that -o none prints nothing on stdout, yet still
// reports failures on stderr.
func TestE2EOutputNone(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("n", 50)), "-t", "t", "-o", "none")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.Empty(t, res.Stderr)
	kafkatest.ConsumeExactly(t, c, "t", 50)

	res = produceTo(t, c, strings.NewReader("a\n"), "-t", "t", "-o", "none", "-p", "99")
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.Regexp(t, `^error: -:1: t/99: .+\n0 delivered, 1 failed\n$`, res.Stderr)

	// Deliveries are counted by batch, failures reported one by one.
	in := kafkatest.NumberedLines("m", 3000) + strings.Repeat("x", 100) + "\n" + kafkatest.NumberedLines("z", 2000)
	res = produceTo(t, c, strings.NewReader(in), "-t", "counted", "-o", "none", "--max-record-bytes", "99", "--batch-size", "4KiB")
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.Regexp(t, `^error: -:3001: counted/-1: record too large: .+\n5000 delivered, 1 failed\n$`, res.Stderr)
	kafkatest.ConsumeExactly(t, c, "counted", 5000)
}
