package checkcmd_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kproduce/kproduce/internal/cli/checkcmd"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// jsonCheck is kproduce check -o json, decoded.
type jsonCheck struct {
	Topic      string `json:"topic"`
	OK         bool   `json:"ok"`
	RunID      string `json:"run_id"`
	Partitions []struct {
		Partition     int32    `json:"partition"`
		Leader        int32    `json:"leader"`
		OK            bool     `json:"ok"`
		Offset        *int64   `json:"offset"`
		LatencyMs     *float64 `json:"latency_ms"`
		ReadLatencyMs *float64 `json:"read_latency_ms"`
		Error         *string  `json:"error"`
		Detail        string   `json:"detail"`
	} `json:"partitions"`
	Summary struct {
		OK        int `json:"ok"`
		Failed    int `json:"failed"`
		Delivered int `json:"canaries_delivered"`
		ReadBack  int `json:"canaries_read_back"`
		LatencyMs struct {
			Min, Median, P99, Max *float64
		} `json:"latency_ms"`
		ReadLatencyMs struct {
			Min, Median, P99, Max *float64
		} `json:"read_latency_ms"`
	} `json:"summary"`
}

func decodeCheck(t *testing.T, out string) jsonCheck { return decodeJSONOutput[jsonCheck](t, out) }

// canaries reads back n records of topic and checks each is a canary of
// runID; it returns them by partition.
func canaries(t *testing.T, c *kfake.Cluster, topic, runID string, n int) map[int32][]*kgo.Record {
	t.Helper()
	by := map[int32][]*kgo.Record{}
	for _, r := range kafkatest.ConsumeAll(t, c.ListenAddrs(), topic, n) {
		require.Len(t, r.Headers, 1)
		assert.Equal(t, checkcmd.CanaryHeader, r.Headers[0].Key)
		assert.Equal(t, runID, string(r.Headers[0].Value))
		assert.True(t, strings.HasPrefix(string(r.Value), "kproduce check "), string(r.Value))
		by[r.Partition] = append(by[r.Partition], r)
	}
	return by
}

var runIDPattern = regexp.MustCompile(`header kproduce-canary: (\S+)\)`)

func TestE2ECheckOK(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	res := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "t", "--count", "3")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr)
	m := runIDPattern.FindStringSubmatch(res.Stdout)
	require.NotNil(t, m, res.Stdout)
	by := canaries(t, c, "t", m[1], 18)
	require.Len(t, by, 6)
	for p := int32(0); p < 6; p++ {
		require.Len(t, by[p], 3, "partition %d", p)
		last := slices.MaxFunc(by[p], func(a, b *kgo.Record) int { return int(a.Offset - b.Offset) })
		assert.Regexp(t, fmt.Sprintf(`(?m)^  %d +%d +%d +[0-9.]+ms +[0-9.]+ms +ok$`, p, c.LeaderFor("t", p), last.Offset), res.Stdout)
	}
	assert.Contains(t, res.Stdout, "partitions: 6 ok, 0 failed")
	assert.Regexp(t, `latency of 18 canaries: min [0-9.]+ms, median [0-9.]+ms, p99 [0-9.]+ms, max [0-9.]+ms`, res.Stdout)
	assert.Regexp(t, `read back 18 canaries: produce to consume min [0-9.]+ms, median [0-9.]+ms, p99 [0-9.]+ms, max [0-9.]+ms`, res.Stdout)
}

func TestE2ECheckJSON(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	res := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "u", "--count", "2", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	got := decodeCheck(t, res.Stdout)
	assert.Equal(t, "u", got.Topic)
	assert.True(t, got.OK)
	by := canaries(t, c, "u", got.RunID, 4)
	require.Len(t, got.Partitions, 2)
	for i, p := range got.Partitions {
		assert.Equal(t, int32(i), p.Partition)
		assert.Equal(t, c.LeaderFor("u", p.Partition), p.Leader)
		assert.True(t, p.OK)
		assert.Nil(t, p.Error)
		require.NotNil(t, p.Offset)
		require.Len(t, by[p.Partition], 2)
		assert.Equal(t, by[p.Partition][1].Offset, *p.Offset, "the last canary's offset")
		require.NotNil(t, p.LatencyMs)
		assert.Positive(t, *p.LatencyMs)
	}
	assert.Equal(t, 2, got.Summary.OK)
	assert.Zero(t, got.Summary.Failed)
	l := got.Summary.LatencyMs
	require.NotNil(t, l.Min)
	assert.LessOrEqual(t, *l.Min, *l.Median)
	assert.LessOrEqual(t, *l.Median, *l.P99)
	assert.LessOrEqual(t, *l.P99, *l.Max)

	// The field names and shapes CONTRACT.md fixes.
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &raw))
	kafkatest.RequireKeys(t, raw, "topic", "ok", "partitions", "summary")
	kafkatest.RequireKeys(t, raw["partitions"].([]any)[0].(map[string]any), "partition", "leader", "ok", "offset", "latency_ms", "error")
	summary := raw["summary"].(map[string]any)
	kafkatest.RequireKeys(t, summary, "ok", "failed", "latency_ms")
	kafkatest.RequireKeys(t, summary["latency_ms"].(map[string]any), "min", "median", "p99", "max")
}

// TestE2ECheckFailingPartition: a partition whose leader keeps answering
// LEADER_NOT_AVAILABLE (kfake cannot make a partition leaderless) fails
// the check, named with its error; the others pass.
func TestE2ECheckFailingPartition(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Partitions: []int32{2},
		Err: kerr.LeaderNotAvailable, Count: -1})
	res := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "t", "--timeout", "1s", "-o", "json")
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	got := decodeCheck(t, res.Stdout)
	assert.False(t, got.OK)
	assert.Equal(t, 5, got.Summary.OK)
	assert.Equal(t, 1, got.Summary.Failed)
	for _, p := range got.Partitions {
		if p.Partition != 2 {
			assert.True(t, p.OK, "partition %d", p.Partition)
			continue
		}
		assert.False(t, p.OK)
		require.NotNil(t, p.Error)
		assert.Equal(t, "LEADER_NOT_AVAILABLE", *p.Error)
		assert.Nil(t, p.Offset)
		assert.Nil(t, p.LatencyMs)
	}
	by := canaries(t, c, "t", got.RunID, 5)
	assert.NotContains(t, by, int32(2))

	text := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "t", "--timeout", "1s")
	assert.Equal(t, cmdutil.ExitFailed, text.Code)
	assert.Regexp(t, `(?m)^  2 +\d +- +- +- +FAILED: LEADER_NOT_AVAILABLE$`, text.Stdout)
	assert.Contains(t, text.Stdout, "partitions: 5 ok, 1 failed")
	assert.Regexp(t, `(?m)^error: t/2 \(leader \d\): LEADER_NOT_AVAILABLE: `, text.Stderr)
	assert.Len(t, kafkatest.Lines(text.Stderr), 1, text.Stderr)
}

// TestE2ECheckLeaderNotReachable: a broker that went down without the
// cluster noticing (its listener and connections closed, still in the
// metadata) fails the partitions it leads as not reachable.
func TestE2ECheckLeaderNotReachable(t *testing.T) {
	var listeners kafkatest.Listeners
	c := kafkatest.AdminCluster(t, kfake.ListenFn(listeners.Listen))
	down := c.LeaderFor("t", 0)
	require.NoError(t, listeners.Down(down))

	res := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "t", "--timeout", "1500ms", "-o", "json")
	assert.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	got := decodeCheck(t, res.Stdout)
	require.Len(t, got.Partitions, 6)
	failed := 0
	for _, p := range got.Partitions {
		if p.Leader != down {
			assert.True(t, p.OK, "partition %d led by %d", p.Partition, p.Leader)
			continue
		}
		failed++
		assert.False(t, p.OK)
		require.NotNil(t, p.Error)
		assert.Equal(t, "not reachable", *p.Error, "partition %d", p.Partition)
		assert.Contains(t, p.Detail, "could not be reached: ", "the detail says why")
		assert.Contains(t, p.Detail, "connection refused", "the detail says why")
	}
	assert.Equal(t, failed, got.Summary.Failed)
	assert.Positive(t, failed)
}

func TestE2ECheckCreate(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	res := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "fresh")
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Contains(t, res.Stderr, "topic fresh does not exist")
	assert.Contains(t, res.Stderr, "--create")
	assert.NotZero(t, kafkatest.Metadata(t, c.ListenAddrs(), "fresh").Topics[0].ErrorCode, "not created")

	res = runCheck(t, "-b", kafkatest.Brokers(c), "-t", "fresh", "--create", "--partitions", "4", "--replication-factor", "1")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, "topic fresh (created): 4 partitions, 1 canary each")
	md := kafkatest.Metadata(t, c.ListenAddrs(), "fresh")
	require.Zero(t, md.Topics[0].ErrorCode)
	assert.Len(t, md.Topics[0].Partitions, 4)
	m := runIDPattern.FindStringSubmatch(res.Stdout)
	require.NotNil(t, m)
	assert.Len(t, canaries(t, c, "fresh", m[1], 4), 4)

	// It exists now: --create is a no-op.
	res = runCheck(t, "-b", kafkatest.Brokers(c), "-t", "fresh", "--create", "--partitions", "2")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, "topic fresh: 4 partitions")
}

func TestE2ECheckUnreachable(t *testing.T) {
	addr := networktest.ClosedAddr(t)
	start := time.Now()
	res := runCheck(t, "-b", addr, "-t", "t", "--timeout", "500ms")
	took := time.Since(start)
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Contains(t, res.Stderr, "unreachable")
	assert.Contains(t, res.Stderr, addr)
	assert.Less(t, took, 10*time.Second, "bounded by --timeout")
}

// TestE2ECheckSecurity runs check over TLS with SCRAM (metadatacmd's
// TestE2EMetadataSecurity runs metadata so).
func TestE2ECheckSecurity(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	c := kafkatest.AdminCluster(t, kfake.TLS(certs.ServerTLS(false)), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", saslUser, saslPass))
	t.Setenv("KPRODUCE_SASL_PASSWORD", saslPass)
	sec := []string{"-b", kafkatest.Brokers(c), "--tls-ca", certs.CA, "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-username", saslUser}
	res := runCheck(t, append([]string{"-t", "t", "--count", "2"}, sec...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	m := runIDPattern.FindStringSubmatch(res.Stdout)
	require.NotNil(t, m)
	kafkatest.ConsumeAll(t, c.ListenAddrs(), "t", 12, kgo.DialTLSConfig(certs.ClientTLS()),
		kgo.SASL(scram.Auth{User: saslUser, Pass: saslPass}.AsSha256Mechanism()))

	// A wrong password fails at once (no wait for --timeout), naming the
	// authentication failure.
	t.Setenv("KPRODUCE_SASL_PASSWORD", "wrong")
	start := time.Now()
	res = runCheck(t, append([]string{"-t", "t", "--timeout", "30s"}, sec...)...)
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Contains(t, res.Stderr, "authentication failed")
	assert.Less(t, time.Since(start), 15*time.Second)
}

// TestE2ECheckCreateNotController: a CreateTopics answered NOT_CONTROLLER
// (the controller moved) is asked again of the controller the metadata
// names then.
func TestE2ECheckCreateNotController(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	var refused atomic.Int32
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		refused.Add(1)
		resp := req.(*kmsg.CreateTopicsRequest).ResponseKind().(*kmsg.CreateTopicsResponse)
		for _, rt := range req.(*kmsg.CreateTopicsRequest).Topics {
			st := kmsg.NewCreateTopicsResponseTopic()
			st.Topic, st.ErrorCode = rt.Topic, kerr.NotController.Code
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	res := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "moved", "--create", "--partitions", "2")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.EqualValues(t, 1, refused.Load(), "refused once, then handled by kfake")
	assert.Contains(t, res.Stdout, "topic moved (created): 2 partitions")
}

// TestCheckTimeoutAnnounced: with --timeout D against an address where
// nothing listens, the check announces that it retries for up to D, not
// the 10s bootstrap default.
func TestCheckTimeoutAnnounced(t *testing.T) {
	r := runCheck(t, "-b", networktest.ClosedAddr(t), "-t", "t", "--timeout", "1500ms")
	assert.Equal(t, cmdutil.ExitFailed, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "retrying for up to 1.5s")
	assert.NotContains(t, r.Stderr, "10s")
}
