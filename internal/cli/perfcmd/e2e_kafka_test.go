package perfcmd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// The flags of kafka-producer-perf-test, each run against kfake, its
// output matched by the tool's formats and its records read back.

func TestRecordSizeRun(t *testing.T) {
	c := newCluster(t)
	res := perf(t, "--topic", "t", "--num-records", "3000", "--record-size", "100", "--throughput", "-1",
		"--producer-props", "bootstrap.servers="+brokers(c), "acks=all", "linger.ms=1")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	m := formatRE(totalFormat).FindStringSubmatch(res.stdout)
	require.NotNil(t, m, "the summary line, in kafka-producer-perf-test's format:\n%s", res.stdout)
	assert.Equal(t, "3000", m[1])
	assert.Equal(t, strings.TrimSpace(res.stdout), m[0], "nothing else on stdout: the run is shorter than a window")
	p50, _ := strconv.Atoi(m[6])
	p999, _ := strconv.Atoi(m[9])
	assert.LessOrEqual(t, p50, p999)
	for _, r := range consume(t, c, "t", 3000) {
		assert.Nil(t, r.Key, "null keys, as kafka-producer-perf-test's")
		require.Len(t, r.Value, 100)
		for _, b := range r.Value {
			require.True(t, b >= 0x20 && b < 0x7f, "printable: %q", r.Value)
		}
	}
}

func TestPayloadFile(t *testing.T) {
	c := newCluster(t)
	dir := t.TempDir()
	entries := []string{"alpha", "beta gamma", "", "delta;epsilon", "zeta"}
	tests := map[string]struct {
		content string
		flags   []string
	}{
		"lines":     {strings.Join(entries, "\n") + "\n", nil},
		"delimiter": {strings.Join(entries, "|"), []string{"--payload-delimiter", "|"}},
		"escaped":   {strings.Join(entries, "\t"), []string{"--payload-delimiter", `\t`}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, name+".txt")
			require.NoError(t, os.WriteFile(file, []byte(tt.content), 0o600))
			topic := "payload-" + name
			args := append([]string{"--bootstrap-server", brokers(c), "--topic", topic, "--num-records", "500",
				"--payload-file", file, "--throughput", "-1"}, tt.flags...)
			res := perf(t, args...)
			require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
			assert.Contains(t, res.stdout, "Reading payloads from: "+file+"\nNumber of messages read: 5\n")
			assert.Regexp(t, formatRE(totalFormat), res.stdout)
			seen := map[string]int{}
			for _, r := range consume(t, c, topic, 500) {
				require.Contains(t, entries, string(r.Value))
				seen[string(r.Value)]++
			}
			assert.Len(t, seen, len(entries), "every entry picked, at random: %v", seen)
		})
	}
}

func TestPayloadMonotonic(t *testing.T) {
	c := newCluster(t)
	res := perf(t, "-b", brokers(c), "--topic", "t", "--num-records", "2500", "--payload-monotonic", "--throughput", "-1")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	var values []int
	last := map[int32]int{}
	for _, r := range consume(t, c, "t", 2500) {
		v, err := strconv.Atoi(string(r.Value))
		require.NoError(t, err)
		if prev, ok := last[r.Partition]; ok {
			assert.Greater(t, v, prev, "increasing within a partition")
		}
		last[r.Partition] = v
		values = append(values, v)
	}
	slices.Sort(values)
	for i, v := range values {
		require.Equal(t, i, v, "0, 1, 2, ... each once")
	}
}

func TestTransactions(t *testing.T) {
	tests := map[string][]string{
		"duration alone":   {"--transaction-duration-ms", "50"},
		"transactional id": {"--transactional-id", "perf-txn", "--transaction-duration-ms", "50"},
		"producer props":   {"--producer-props", "transactional.id=perf-props", "linger.ms=2"},
	}
	for name, flags := range tests {
		t.Run(name, func(t *testing.T) {
			c := newCluster(t)
			args := append([]string{"-b", brokers(c), "--topic", "t", "--num-records", "4000", "--record-size", "20",
				"--throughput", "20000", "-o", "json"}, flags...)
			res := perf(t, args...)
			require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
			sum := summary(t, res.stdout)
			require.NotNil(t, sum.Transactions)
			assert.Zero(t, sum.Transactions.Aborted)
			assert.GreaterOrEqual(t, sum.Transactions.Committed, int64(1))
			assert.NotEmpty(t, sum.Settings.TransactionalID)
			if name == "duration alone" {
				assert.True(t, strings.HasPrefix(sum.Settings.TransactionalID, "performance-producer-"), sum.Settings.TransactionalID)
				assert.GreaterOrEqual(t, sum.Transactions.Committed, int64(2), "one transaction every 50 ms of a 200 ms run")
			}
			consume(t, c, "t", 4000) // read_committed: every record, committed
		})
	}
}

func TestWarmup(t *testing.T) {
	c := newCluster(t)
	res := perf(t, "-b", brokers(c), "--topic", "t", "--num-records", "3000", "--record-size", "50",
		"--throughput", "6000", "--warmup-records", "1000", "--reporting-interval", "40ms")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	assert.Equal(t, "Warmup first 1000 records. Steady state results will print after the complete test summary.", lines[0])
	steadyAt := slices.Index(lines, "In steady state.")
	require.Positive(t, steadyAt, "the first window after the warm-up says so:\n%s", res.stdout)
	require.Less(t, steadyAt, len(lines)-3)
	windowRE := formatRE(windowFormat)
	for _, l := range lines[1 : len(lines)-2] {
		if l != "In steady state." {
			assert.Regexp(t, windowRE, l)
		}
	}
	total := formatRE(totalFormat).FindStringSubmatch(lines[len(lines)-2])
	require.NotNil(t, total, "the total, then the steady state:\n%s", res.stdout)
	assert.Equal(t, "3000", total[1])
	steady := formatRE(steadyFormat).FindStringSubmatch(lines[len(lines)-1])
	require.NotNil(t, steady, "the steady state's summary comes last:\n%s", res.stdout)
	assert.Equal(t, "2000", steady[1])
	consume(t, c, "t", 3000)
}

func TestWindowLines(t *testing.T) {
	c := newCluster(t)
	res := perf(t, "-b", brokers(c), "--topic", "t", "--num-records", "2000", "--record-size", "10",
		"--throughput", "5000", "--reporting-interval", "50ms")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.GreaterOrEqual(t, len(lines), 3, "windows every 50 ms of a 400 ms run:\n%s", res.stdout)
	windowRE := formatRE(windowFormat)
	sent := 0
	for _, l := range lines[:len(lines)-1] {
		m := windowRE.FindStringSubmatch(l)
		require.NotNil(t, m, "a window line: %q", l)
		n, _ := strconv.Atoi(m[1])
		sent += n
	}
	assert.LessOrEqual(t, sent, 2000)
	assert.Regexp(t, formatRE(totalFormat), lines[len(lines)-1])
}

func TestProducerConfigFiles(t *testing.T) {
	c := newCluster(t)
	props := filepath.Join(t.TempDir(), "producer.properties")
	require.NoError(t, os.WriteFile(props, []byte("bootstrap.servers="+brokers(c)+"\nacks=1\nclient.id=from-file\n"), 0o600))
	for _, flag := range []string{"--producer.config", "--command-config"} {
		t.Run(flag, func(t *testing.T) {
			res := perf(t, flag, props, "--topic", "t", "--num-records", "100", "--record-size", "10",
				"--throughput", "-1", "--command-property", "linger.ms=7", "compression.type=lz4", "-o", "json")
			require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
			s := summary(t, res.stdout).Settings
			assert.Equal(t, "1", s.Acks)
			assert.Equal(t, "from-file", s.ClientID)
			assert.InDelta(t, 7.0, s.LingerMs, 1e-9, "--command-property takes several values too")
			assert.Equal(t, "lz4", s.Compression)
			assert.False(t, s.Idempotence, "acks=1: no idempotence, as in the Java client")
		})
	}
}

func TestProducerPropsTakeSeveralValues(t *testing.T) {
	c := newCluster(t)
	res := perf(t, "--topic", "t", "--producer-props", "bootstrap.servers="+brokers(c), "acks=0", "client.id=perf-x",
		"batch.size=4096", "--num-records", "200", "--record-size", "10", "--throughput", "-1", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	s := summary(t, res.stdout).Settings
	assert.Equal(t, "0", s.Acks)
	assert.Equal(t, "perf-x", s.ClientID)
	assert.Equal(t, 4096, s.BatchSize)
	assert.Equal(t, "perf-producer-client", summary(t, perf(t, "-b", brokers(c), "-t", "t", "--num-records", "1",
		"--record-size", "1", "-o", "json").stdout).Settings.ClientID, "kafka-producer-perf-test's client id by default")
}

func TestPrintMetricsAndHistogram(t *testing.T) {
	c := newCluster(t)
	res := perf(t, "-b", brokers(c), "--topic", "t", "--num-records", "1000", "--record-size", "10", "--throughput", "-1",
		"--print-metrics", "--histogram")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	lines := strings.Split(res.stdout, "\n")
	assert.Regexp(t, formatRE(totalFormat), lines[0])
	assert.Regexp(t, `(?m)^Metric Name +Value$`, res.stdout)
	assert.Regexp(t, `(?m)^producer-metrics:record-send-total:\{client-id=perf-producer-client\} +: 1000\.000$`, res.stdout)
	assert.Regexp(t, `(?m)^producer-metrics:record-error-total:\{client-id=perf-producer-client\} +: 0\.000$`, res.stdout)
	rows := regexp.MustCompile(`(?m)^ *([\d.]+) - +([\d.]+) +(\d+) +[\d.]+% *#*$`).FindAllStringSubmatch(res.stdout, -1)
	require.NotEmpty(t, rows, "the latency chart:\n%s", res.stdout)
	total := 0
	for _, r := range rows {
		n, _ := strconv.Atoi(r[3])
		total += n
	}
	assert.Equal(t, 1000, total, "the chart counts every record")
}
