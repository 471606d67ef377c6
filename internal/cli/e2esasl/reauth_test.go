package e2esasl

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// keyedLines are n lines "kI:N" over keys k0..k2, N counting up.
func keyedLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d:%d\n", i%3, i)
	}
	return b.String()
}

// checkExactlyOnce checks that the n keyed records arrived once each, in
// order per key.
func checkExactlyOnce(t *testing.T, e *env, n int) {
	t.Helper()
	recs := e.consume(n)
	seen := map[int]bool{}
	last := map[string]int{}
	for _, r := range recs {
		v, err := strconv.Atoi(string(r.Value))
		require.NoError(t, err)
		assert.False(t, seen[v], "record %d twice", v)
		seen[v] = true
		if prev, ok := last[string(r.Key)]; ok {
			assert.Greater(t, v, prev, "key %s out of order", r.Key)
		}
		last[string(r.Key)] = v
	}
	assert.Len(t, seen, n)
}

// reauthRun streams n records at rate through the front with args and
// checks: every record once and in order per key, no connection closed
// by the front, at least minReauth re-authentications on every connection
// that lived through the stream, and --stats counting them all.
func reauthRun(t *testing.T, e *env, principal string, n, rate, minReauth int, args ...string) {
	t.Helper()
	start := time.Now()
	base := []string{"-b", e.brokers(), "-t", "t", "-K", ":", "-o", "none", "--rate", strconv.Itoa(rate), "--stats"}
	res := run(t, strings.NewReader(keyedLines(n)), append(base, args...)...)
	require.Equal(t, 0, res.Code, "stderr:\n%s", res.Stderr)
	elapsed := time.Since(start)
	checkExactlyOnce(t, e, n)

	total, long := 0, 0
	for _, c := range e.conns(principal) {
		assert.False(t, c.Expired, "connection %d: the front closed it, its session ended", c.ID)
		assert.Empty(t, c.Violation, "connection %d", c.ID)
		total += c.Reauthentications
		if c.Ended.Sub(c.Opened) >= elapsed*3/4 {
			long++
			assert.GreaterOrEqual(t, c.Reauthentications, minReauth, "connection %d lived %v", c.ID, c.Ended.Sub(c.Opened))
		}
		t.Logf("connection %d (%s): %d re-authentications in %v", c.ID, c.Mechanism, c.Reauthentications, c.Ended.Sub(c.Opened).Round(time.Millisecond))
	}
	assert.Positive(t, long, "connections lived through the stream")
	m := regexp.MustCompile(`stats: sessions  (\d+) re-authentications`).FindStringSubmatch(res.Stderr)
	require.NotNil(t, m, "--stats counts the re-authentications:\n%s", res.Stderr)
	assert.Equal(t, strconv.Itoa(total), m[1], "--stats and the front agree")
	t.Logf("%d records in %v, %d re-authentications (%s)", n, elapsed.Round(time.Millisecond), total, m[0])
}

// longRun says how long the stream of a re-authentication test lasts:
// 20s in full (KPRODUCE_LONG_TESTS, or the default), 8s with -short.
func longRun(t *testing.T) (records, minReauth int) {
	if testing.Short() && !kafkatest.LongTests() {
		return 400, 2 // 8s
	}
	return 1000, 5 // 20s
}

// A 20s stream with 2s sessions and 3s tokens from the client credentials
// grant: every connection re-authenticates with fresh tokens, and the
// front never has to close one.
func TestReauthenticationOAuthBearer(t *testing.T) {
	e := newEnv(t, envConfig{SessionLifetime: 2 * time.Second, TokenLifetime: 3 * time.Second})
	n, minReauth := longRun(t)
	reauthRun(t, e, "app", n, 50, minReauth, "--oauth-token-endpoint", e.issuer.TokenURL(), "--oauth-client-id", "app",
		"--oauth-client-secret", "app-s3cret", "--oauth-scope", "kafka")
	_, issued := e.issuer.Requests()
	assert.GreaterOrEqual(t, issued, n/50/3, "tokens refreshed before they expire")
}

// SCRAM connections re-authenticate the same way, through the front,
// which enforces the session lifetime: the same 20s stream with 2s
// sessions.
func TestReauthenticationSCRAM(t *testing.T) {
	scram := saslfront.SCRAM(true, map[string]string{"alice": "alice-s3cret"})
	e := newEnv(t, envConfig{SessionLifetime: 2 * time.Second, Extra: []saslfront.Mechanism{scram}})
	n, minReauth := longRun(t)
	reauthRun(t, e, "alice", n, 50, minReauth, "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", "alice", "--sasl-password", "alice-s3cret")
}

// kfake's own SCRAM with connections.max.reauth.ms, another broker's
// implementation of KIP-368: the stream goes through, re-authenticated.
func TestReauthenticationKfakeSCRAM(t *testing.T) {
	cluster := kafkatest.NewCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "t"), kfake.EnableSASL(),
		kfake.Superuser("SCRAM-SHA-256", "alice", "alice-s3cret"), kfake.BrokerConfigs(map[string]string{"connections.max.reauth.ms": "1500"}))
	res := run(t, strings.NewReader(keyedLines(300)), "-b", strings.Join(cluster.ListenAddrs(), ","), "-t", "t", "-K", ":", "-o", "none",
		"--rate", "50", "--stats", "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-username", "alice", "--sasl-password", "alice-s3cret")
	require.Equal(t, 0, res.Code, "stderr:\n%s", res.Stderr)
	m := regexp.MustCompile(`stats: sessions  (\d+) re-authentications`).FindStringSubmatch(res.Stderr)
	require.NotNil(t, m, res.Stderr)
	count, _ := strconv.Atoi(m[1])
	assert.GreaterOrEqual(t, count, 3, "6s with 1.5s sessions")
}
