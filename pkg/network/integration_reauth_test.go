package network_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// keepBusy sends Metadata requests to every node of md for d and returns
// how many were answered; every one must succeed.
func keepBusy(t *testing.T, rc *realClient, d time.Duration) int {
	t.Helper()
	answered := 0
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		for _, n := range rc.md.Fetch().Nodes() {
			resp := rc.sendAndWait(n.ID, &protocol.MetadataRequest{}, 0)
			require.NoError(t, resp.Err)
			answered++
		}
	}
	return answered
}

// kfake's own SCRAM, with connections.max.reauth.ms: the client
// re-authenticates every connection, on the same connection.
func TestIntegrationReauthenticationKfakeSCRAM(t *testing.T) {
	cluster := startCluster(t, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "u", "p"),
		kfake.BrokerConfigs(map[string]string{"connections.max.reauth.ms": "2000"}))
	mech, err := network.NewSASLMechanism("SCRAM-SHA-512", "u", "p")
	require.NoError(t, err)
	rc := newRealClient(t, cluster.ListenAddrs(), network.Config{SASL: mech}, network.SocketConfig{})
	rc.waitTopic("t", 6)
	assert.Positive(t, keepBusy(t, rc, 5*time.Second))
	assert.GreaterOrEqual(t, rc.c.Reauthentications(), int64(3), "about two per connection")
}

// The SASL front closes a connection used after its session ended and
// cuts off a client that interleaves its SASL exchange with requests: the
// client gives it neither reason.
func TestIntegrationReauthenticationFront(t *testing.T) {
	front := saslfront.New(saslfront.Config{
		Mechanisms:      []saslfront.Mechanism{saslfront.Plain(map[string]string{"u": "p"})},
		SessionLifetime: 2 * time.Second,
	})
	cluster := startCluster(t, kfake.ListenFn(front.Listen))
	t.Cleanup(front.Close)
	rc := newRealClient(t, cluster.ListenAddrs(), network.Config{SASL: network.PlainMechanism{Username: "u", Password: "p"}}, network.SocketConfig{})
	rc.waitTopic("t", 6)
	assert.Positive(t, keepBusy(t, rc, 5*time.Second))
	reauths := 0
	for _, c := range front.Connections() {
		assert.False(t, c.Expired, "connection %d closed as expired", c.ID)
		assert.Empty(t, c.Violation, "connection %d", c.ID)
		reauths += c.Reauthentications
	}
	assert.GreaterOrEqual(t, reauths, 3)
	assert.EqualValues(t, reauths, rc.c.Reauthentications())
}
