package saslfront_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

var users = map[string]string{"alice": "s3cret"}

func TestPlainAndSCRAMWithKgo(t *testing.T) {
	front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{
		saslfront.Plain(users), saslfront.SCRAM(false, users), saslfront.SCRAM(true, users),
	}}, 3)
	tests := []struct {
		name      string
		good, bad sasl.Mechanism
	}{
		{"PLAIN", plain.Auth{User: "alice", Pass: "s3cret"}.AsMechanism(), plain.Auth{User: "alice", Pass: "wrong"}.AsMechanism()},
		{"SCRAM-SHA-256", scram.Auth{User: "alice", Pass: "s3cret"}.AsSha256Mechanism(), scram.Auth{User: "alice", Pass: "wrong"}.AsSha256Mechanism()},
		{"SCRAM-SHA-512", scram.Auth{User: "alice", Pass: "s3cret"}.AsSha512Mechanism(), scram.Auth{User: "bob", Pass: "s3cret"}.AsSha512Mechanism()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, produceConsume(t, cluster, tt.good, 5))
			err := authError(t, cluster, tt.bad)
			require.Error(t, err)
			assert.ErrorIs(t, err, kerr.SaslAuthenticationFailed)
		})
	}
	var auths, failures int
	for _, c := range front.Connections() {
		auths += c.Authentications
		failures += c.Failures
		assert.Empty(t, c.Violation, "connection %d", c.ID)
		if c.Authentications > 0 {
			assert.Equal(t, "alice", c.Principal)
		}
	}
	assert.GreaterOrEqual(t, auths, 3)
	assert.GreaterOrEqual(t, failures, 3)
}

// The front adds SaslHandshake and SaslAuthenticate to the cluster's
// versions and keeps the rest.
func TestApiVersionsAmended(t *testing.T) {
	_, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.Plain(users)}}, 1)
	for _, v := range []int16{0, 3, 4} {
		r := dialRaw(t, cluster.ListenAddrs()[0])
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version = v
		req.ClientSoftwareName, req.ClientSoftwareVersion = "test", "1"
		resp, err := r.roundTrip(req)
		require.NoError(t, err)
		keys := map[int16][2]int16{}
		for _, k := range resp.(*kmsg.ApiVersionsResponse).ApiKeys {
			keys[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
		}
		assert.Equal(t, [2]int16{0, 1}, keys[17], "v%d", v)
		assert.Equal(t, [2]int16{0, 2}, keys[36], "v%d", v)
		assert.Contains(t, keys, int16(0), "Produce is the cluster's")
	}
}

func TestUnauthenticatedRequestCloses(t *testing.T) {
	front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.Plain(users)}}, 1)
	r := dialRaw(t, cluster.ListenAddrs()[0])
	require.Error(t, r.metadata())
	assert.Contains(t, front.Connections()[0].Violation, "before authentication")
}

func TestUnknownMechanism(t *testing.T) {
	_, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.Plain(users), saslfront.SCRAM(false, users)}}, 1)
	r := dialRaw(t, cluster.ListenAddrs()[0])
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, "GSSAPI"
	resp, err := r.roundTrip(hs)
	require.NoError(t, err)
	assert.Equal(t, kerr.UnsupportedSaslMechanism.Code, resp.(*kmsg.SASLHandshakeResponse).ErrorCode)
	assert.Equal(t, []string{"PLAIN", "SCRAM-SHA-256"}, resp.(*kmsg.SASLHandshakeResponse).SupportedMechanisms)
}

// After a v0 handshake the exchange is framed raw.
func TestHandshakeV0(t *testing.T) {
	front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.Plain(users)}}, 1)
	r := dialRaw(t, cluster.ListenAddrs()[0])
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 0, "PLAIN"
	_, err := r.roundTrip(hs)
	require.NoError(t, err)
	token := []byte("\x00alice\x00s3cret")
	_, err = r.c.Write(append([]byte{0, 0, 0, byte(len(token))}, token...))
	require.NoError(t, err)
	var size [4]byte
	_, err = r.c.Read(size[:])
	require.NoError(t, err)
	assert.Equal(t, [4]byte{}, size, "an empty raw answer")
	require.NoError(t, r.metadata())
	assert.Equal(t, 1, front.Connections()[0].Authentications)
}

// A session ends: the final SaslAuthenticate says when, a request after
// it closes the connection, and a re-authentication before it extends it.
func TestSessionLifetime(t *testing.T) {
	clock := &manualClock{now: time.Unix(1_700_000_000, 0)}
	front, cluster := startFront(t, saslfront.Config{
		Mechanisms: []saslfront.Mechanism{saslfront.Plain(users)}, SessionLifetime: 2 * time.Second, Now: clock.Now,
	}, 1)
	addr := cluster.ListenAddrs()[0]

	r := dialRaw(t, addr)
	assert.Equal(t, int64(2000), r.authPlain("alice", "s3cret").SessionLifetimeMillis)
	require.NoError(t, r.metadata())
	clock.Advance(1500 * time.Millisecond)
	assert.Equal(t, int64(2000), r.authPlain("alice", "s3cret").SessionLifetimeMillis, "re-authenticated")
	clock.Advance(1500 * time.Millisecond)
	require.NoError(t, r.metadata(), "within the new session")
	clock.Advance(500 * time.Millisecond)
	require.Error(t, r.metadata(), "the session ended")
	kafkatest.WaitFor(t, 10*time.Second, "closed", func() bool { return front.Connections()[0].Closed })
	c := front.Connections()[0]
	assert.True(t, c.Expired)
	assert.Equal(t, 1, c.Authentications)
	assert.Equal(t, 1, c.Reauthentications)

	// A re-authentication that comes too late closes the connection too.
	r2 := dialRaw(t, addr)
	r2.authPlain("alice", "s3cret")
	clock.Advance(2 * time.Second)
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, "PLAIN"
	_, err := r2.roundTrip(hs)
	require.Error(t, err)
	kafkatest.WaitFor(t, 10*time.Second, "closed", func() bool { return front.Connections()[1].Closed })
	assert.True(t, front.Connections()[1].Expired)
}

// Without a session lifetime there is nothing to re-authenticate:
// SaslHandshake on an authenticated connection is an illegal state.
func TestNoReauthenticationWithoutLifetime(t *testing.T) {
	_, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.Plain(users)}}, 1)
	r := dialRaw(t, cluster.ListenAddrs()[0])
	assert.Zero(t, r.authPlain("alice", "s3cret").SessionLifetimeMillis)
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, "PLAIN"
	resp, err := r.roundTrip(hs)
	require.NoError(t, err)
	assert.Equal(t, kerr.IllegalSaslState.Code, resp.(*kmsg.SASLHandshakeResponse).ErrorCode)
}

func TestReauthenticationMustKeepThePrincipal(t *testing.T) {
	front, cluster := startFront(t, saslfront.Config{
		Mechanisms: []saslfront.Mechanism{saslfront.Plain(map[string]string{"alice": "a", "bob": "b"})}, SessionLifetime: time.Hour,
	}, 1)
	r := dialRaw(t, cluster.ListenAddrs()[0])
	require.Zero(t, r.authPlain("alice", "a").ErrorCode)
	resp := r.authPlain("bob", "b")
	assert.Equal(t, kerr.SaslAuthenticationFailed.Code, resp.ErrorCode)
	assert.Contains(t, *resp.ErrorMessage, "cannot change principals")
	kafkatest.WaitFor(t, 10*time.Second, "closed", func() bool { return front.Connections()[0].Closed })
}

// A client that interleaves its SASL exchange with other requests is cut
// off: a request in the middle of an exchange, or a re-authentication
// while answers are owed.
func TestInterleavingIsAViolation(t *testing.T) {
	t.Run("request during the exchange", func(t *testing.T) {
		front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.Plain(users)}, SessionLifetime: time.Hour}, 1)
		r := dialRaw(t, cluster.ListenAddrs()[0])
		r.authPlain("alice", "s3cret")
		hs := kmsg.NewPtrSASLHandshakeRequest()
		hs.Version, hs.Mechanism = 1, "PLAIN"
		_, err := r.roundTrip(hs)
		require.NoError(t, err)
		require.Error(t, r.metadata())
		kafkatest.WaitFor(t, 10*time.Second, "closed", func() bool { return front.Connections()[0].Closed })
		assert.Contains(t, front.Connections()[0].Violation, "in the middle of a SASL exchange")
	})
	t.Run("re-authentication with answers owed", func(t *testing.T) {
		front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.Plain(users)}, SessionLifetime: time.Hour}, 1)
		release := make(chan struct{})
		cluster.ControlKey(int16(kmsg.Metadata), func(kmsg.Request) (kmsg.Response, error, bool) {
			cluster.SleepControl(func() { <-release })
			return nil, nil, false
		})
		defer close(release)
		r := dialRaw(t, cluster.ListenAddrs()[0])
		r.authPlain("alice", "s3cret")
		md := kmsg.NewPtrMetadataRequest()
		md.Version = 9
		r.send(md)
		hs := kmsg.NewPtrSASLHandshakeRequest()
		hs.Version, hs.Mechanism = 1, "PLAIN"
		r.send(hs)
		kafkatest.WaitFor(t, 10*time.Second, "closed", func() bool { return front.Connections()[0].Closed })
		assert.Contains(t, front.Connections()[0].Violation, "answers still owed")
	})
}

// kgo re-authenticates (KIP-368) on its own: through the front it does
// so on every connection, and the front never has to close one.
func TestKgoReauthenticates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for 4 s")
	}
	front, cluster := startFront(t, saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.SCRAM(true, users)}, SessionLifetime: 1500 * time.Millisecond}, 1,
		kfake.AllowAutoTopicCreation())
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.DefaultProduceTopic("t"),
		kgo.SASL(scram.Auth{User: "alice", Pass: "s3cret"}.AsSha512Mechanism()))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for deadline := time.Now().Add(4 * time.Second); time.Now().Before(deadline); {
		require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v")}).FirstErr())
	}
	reauths := 0
	for _, c := range front.Connections() {
		reauths += c.Reauthentications
		assert.False(t, c.Expired, "connection %d", c.ID)
		assert.Empty(t, c.Violation)
	}
	assert.Positive(t, reauths)
}
