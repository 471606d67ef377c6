package network_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network"
)

func saslCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	return startCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "u", "p"))
}

func TestIntegrationSASLPlain(t *testing.T) {
	cluster := saslCluster(t)
	addrs := cluster.ListenAddrs()
	rc := newRealClient(t, addrs, network.Config{SASL: network.PlainMechanism{Username: "u", Password: "p"}}, network.SocketConfig{})
	md := rc.waitTopic("t", 6)
	base := time.Now().UnixMilli()
	rc.produceToLeaders(md, "t", base)
	records := kafkatest.ConsumeAll(t, addrs, "t", 18, kgo.SASL(plain.Auth{User: "u", Pass: "p"}.AsMechanism()))
	checkRecords(t, records, 6, base)
	for _, n := range md.Nodes() {
		assert.NoError(t, rc.c.AuthenticationError(n.ID))
	}
}

// failingSASL runs a client with mech against a SASL cluster until every
// bootstrap broker failed, checks no broker is retried, and returns the
// metadata error.
func failingSASL(t *testing.T, mech network.SASLMechanism) error {
	t.Helper()
	cluster := saslCluster(t)
	addrs := cluster.ListenAddrs()
	bootstrap, err := network.BootstrapNodes(addrs)
	require.NoError(t, err)
	md := network.NewMetadata(network.MetadataConfig{}, bootstrap)
	sel := &countingSelector{Selector: network.NewSocketSelector(network.SocketConfig{})}
	cfg := network.Config{SASL: mech, ReconnectBackoff: time.Millisecond, ReconnectBackoffMax: time.Millisecond}
	c := network.NewClient(cfg, md, sel, network.SystemClock{})
	defer c.Close()

	failed := func() int {
		n := 0
		for _, b := range bootstrap {
			if c.AuthenticationError(b.ID) != nil {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(testDeadline)
	for failed() < len(bootstrap) {
		require.True(t, time.Now().Before(deadline), "authentication failures: %d", failed())
		require.Empty(t, c.Poll(50*time.Millisecond, time.Now()))
	}
	for range 10 {
		require.Empty(t, c.Poll(10*time.Millisecond, time.Now()))
	}
	sel.mu.Lock()
	assert.Len(t, sel.connects, len(bootstrap), "an authentication failure is final: no retry")
	sel.mu.Unlock()
	for _, b := range bootstrap {
		assert.Equal(t, network.AuthenticationFailed, c.ConnectionState(b.ID))
		assert.False(t, c.Ready(b.ID, time.Now()))
	}
	_, ok := c.LeastLoadedNode(time.Now())
	assert.False(t, ok)
	err = md.LastError()
	require.ErrorIs(t, err, network.ErrAuthentication)
	return err
}

func TestIntegrationSASLWrongPassword(t *testing.T) {
	// kfake closes the connection instead of answering error 58.
	err := failingSASL(t, network.PlainMechanism{Username: "u", Password: "wrong"})
	assert.Contains(t, err.Error(), "the broker closed the connection during SASL authentication")
}

// namedMechanism is a mechanism the broker does not enable.
type namedMechanism struct{ name string }

func (m namedMechanism) Name() string { return m.name }

func (m namedMechanism) NewSession(network.Node) (network.SASLSession, error) {
	panic("no session starts for a mechanism the broker refused")
}

func TestIntegrationSASLUnknownMechanism(t *testing.T) {
	err := failingSASL(t, namedMechanism{name: "OAUTHBEARER"})
	assert.Contains(t, err.Error(), "does not enable SASL mechanism OAUTHBEARER; it offers PLAIN, SCRAM-SHA-256, SCRAM-SHA-512")
}
