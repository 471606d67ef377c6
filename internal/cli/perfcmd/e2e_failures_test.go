package perfcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// closedPort returns an address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func TestUnreachableCluster(t *testing.T) {
	addr := closedPort(t)
	for _, output := range []string{"text", "json"} {
		t.Run(output, func(t *testing.T) {
			start := time.Now()
			res := perf(t, "-b", addr, "-t", "t", "--num-records", "1000", "--record-size", "10", "--bootstrap-timeout", "1s", "-o", output)
			assert.Equal(t, cmdutil.ExitFailed, res.code)
			assert.Less(t, time.Since(start), 30*time.Second, "given up after --bootstrap-timeout")
			assert.Contains(t, res.stderr, "error: ")
			assert.Contains(t, res.stderr, "cannot reach the cluster")
			assert.Contains(t, res.stderr, addr)
			if output == "json" {
				sum := summary(t, res.stdout)
				assert.Zero(t, sum.Records)
				assert.Zero(t, sum.Failed)
				require.NotNil(t, sum.Error)
				assert.Contains(t, *sum.Error, "cannot reach the cluster")
				return
			}
			m := formatRE(totalFormat).FindStringSubmatch(res.stdout)
			require.NotNil(t, m, "the summary, with its counts:\n%s", res.stdout)
			assert.Equal(t, "0", m[1])
		})
	}
}

// TestFailingPartition: a partition that refuses every batch fails its
// records, counted by reason; the others' are delivered.
func TestFailingPartition(t *testing.T) {
	c := newCluster(t)
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Partitions: []int32{1}, Err: kerr.InvalidRecord, Count: -1})
	for _, output := range []string{"text", "json"} {
		t.Run(output, func(t *testing.T) {
			res := perf(t, "-b", brokers(c), "-t", "t", "--num-records", "3000", "--record-size", "10", "--key-count", "300",
				"--throughput", "-1", "-o", output)
			assert.Equal(t, cmdutil.ExitFailed, res.code, res.stderr)
			assert.Regexp(t, `kproduce perf: \d+ of 3000 records failed: \d+ INVALID_RECORD \(first: t/1: `, res.stderr)
			if output == "text" {
				m := formatRE(totalFormat).FindStringSubmatch(res.stdout)
				require.NotNil(t, m, res.stdout)
				return
			}
			sum := summary(t, res.stdout)
			assert.Positive(t, sum.Failed)
			assert.Equal(t, map[string]int64{"INVALID_RECORD": sum.Failed}, sum.Errors)
			assert.Equal(t, int64(3000), sum.Records+sum.Failed)
			for _, p := range sum.Partitions {
				if p.Partition == 1 {
					assert.Zero(t, p.Records)
					assert.Equal(t, sum.Failed, p.Failed)
				} else {
					assert.Zero(t, p.Failed)
					assert.Positive(t, p.Records)
				}
			}
			assert.Nil(t, sum.Error, "the run went to its end")
		})
	}
}

// TestHistogramWhenNothingAcknowledged: with --histogram, -o json's
// summary has its histogram even when no record was acknowledged (every
// batch refused, or no broker reached): an empty list of rows, as a
// script reading it expects a list; the text chart says none was.
func TestHistogramWhenNothingAcknowledged(t *testing.T) {
	c := newCluster(t)
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Err: kerr.InvalidRecord, Count: -1})
	for name, args := range map[string][]string{
		"refused":     {"-b", brokers(c), "--retries", "0"},
		"unreachable": {"-b", closedPort(t), "--bootstrap-timeout", "1s"},
	} {
		t.Run(name, func(t *testing.T) {
			common := []string{"-t", "t", "--num-records", "50", "--record-size", "10", "--histogram"}
			res := perf(t, append(append(common, args...), "-o", "json")...)
			assert.Equal(t, cmdutil.ExitFailed, res.code, res.stderr)
			sum := summary(t, res.stdout)
			assert.Zero(t, sum.Records)
			lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &raw))
			_, ok := raw["histogram"]
			require.True(t, ok, "a histogram key: %s", res.stdout)
			assert.JSONEq(t, "[]", string(raw["histogram"]))

			res = perf(t, append(common, args...)...)
			assert.Equal(t, cmdutil.ExitFailed, res.code, res.stderr)
			assert.Contains(t, res.stdout, "latency: no record was acknowledged")
		})
	}
}

func TestUsageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "payloads.txt")
	require.NoError(t, os.WriteFile(file, []byte("a\nb\n"), 0o600))
	empty := filepath.Join(t.TempDir(), "empty.txt")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	oneLine := filepath.Join(t.TempDir(), "one-line.txt")
	require.NoError(t, os.WriteFile(oneLine, append([]byte("a\n"), bytes.Repeat([]byte("x"), 2<<20)...), 0o600))
	tests := map[string]struct {
		args []string
		want string
	}{
		"payload entry too large": {[]string{"-t", "t", "--num-records", "10", "--payload-file", oneLine}, "entry 2, at byte 2, is more than 1048576 bytes"},
		"payload entry and key too large": {[]string{"-t", "t", "--num-records", "10", "--payload-file", file, "--max-request-size", "1024",
			"--key-size", "1024"}, "entry 1, at byte 0, is more than 0 bytes"},
		"no length":               {[]string{"-t", "t", "--record-size", "10"}, "--num-records N"},
		"no payload":              {[]string{"-t", "t", "--num-records", "10"}, "none is given"},
		"two payloads":            {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--payload-file", file}, "--record-size and --payload-file are given"},
		"props without =":         {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--producer-props", "acks=1", "linger"}, `--producer-props "linger": want NAME=VALUE`},
		"no topic":                {[]string{"--num-records", "10", "--record-size", "10"}, "--topic"},
		"zero records":            {[]string{"-t", "t", "--num-records", "0", "--record-size", "10"}, "--num-records"},
		"warmup too long":         {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--warmup-records", "10"}, "fewer than --num-records 10"},
		"zero throughput":         {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--throughput", "0"}, "-1 for no limit"},
		"progress json alone":     {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--progress-json"}, "-o json"},
		"too few key digits":      {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--key-count", "1000", "--key-size", "2"}, "at least 3 digits"},
		"missing payload file":    {[]string{"-t", "t", "--num-records", "10", "--payload-file", file + ".nope"}, "payloads.txt.nope"},
		"empty payload file":      {[]string{"-t", "t", "--num-records", "10", "--payload-file", empty}, "no payload in it"},
		"bad transaction length":  {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--transaction-duration-ms", "0"}, "--transaction-duration-ms"},
		"records too large":       {[]string{"-t", "t", "--num-records", "10", "--record-size", "2MiB"}, "cannot fit in a request of --max-request-size 1048576"},
		"unknown flag":            {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--nope"}, "unknown flag: --nope"},
		"idempotence and acks=1":  {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--producer-props", "acks=1", "enable.idempotence=true"}, "idempotence"},
		"props of another flag's": {[]string{"-t", "t", "--num-records", "10", "--record-size", "10", "--producer-props"}, "flag needs an argument"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			res := perf(t, tt.args...)
			assert.Equal(t, cmdutil.ExitUsage, res.code, res.stderr)
			assert.Empty(t, res.stdout)
			assert.Contains(t, res.stderr, tt.want)
			assert.Contains(t, res.stderr, "kproduce perf --help")
		})
	}
}

// A --throughput that is not a number is told once, as it is given.
func TestThroughputNotANumber(t *testing.T) {
	for _, v := range []string{"NaN", "Inf", "fast", "0.0"} {
		res := perf(t, "-t", "t", "--num-records", "10", "--record-size", "10", "--throughput", v)
		assert.Equal(t, cmdutil.ExitUsage, res.code, res.stderr)
		assert.Equal(t, 1, strings.Count(res.stderr, "error: "), res.stderr)
		assert.Contains(t, res.stderr, `--throughput "`+v+`"`)
	}
}

// TestInterrupted: an interrupt stops the run; what was handed over is
// flushed and summed up, and the exit status is 130.
func TestInterrupted(t *testing.T) {
	c := newCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res := perfCtx(t, ctx, "-b", brokers(c), "-t", "t", "--duration", "1h", "--record-size", "10", "--throughput", "1000")
	assert.Equal(t, cmdutil.ExitInterrupted, res.code, res.stderr)
	m := formatRE(totalFormat).FindStringSubmatch(res.stdout)
	require.NotNil(t, m, res.stdout)
	assert.NotEqual(t, "0", m[1])
	assert.False(t, strings.Contains(res.stderr, "error:"), res.stderr)
}
