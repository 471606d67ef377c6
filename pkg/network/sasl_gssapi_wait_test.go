package network_test

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/krb5test"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// heldKDC dials the KDC, or waits while the test holds it (a KDC that does
// not answer) until released or the exchange's deadline.
type heldKDC struct {
	mu        sync.Mutex
	release   chan struct{} // nil: not held
	dials     int           // dials that waited
	cancelled int           // dials whose exchange was cancelled while they waited
}

func (k *heldKDC) hold() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.release = make(chan struct{})
}

func (k *heldKDC) unhold() {
	k.mu.Lock()
	defer k.mu.Unlock()
	close(k.release)
	k.release = nil
}

func (k *heldKDC) waiting() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dials
}

func (k *heldKDC) cancels() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.cancelled
}

func (k *heldKDC) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	k.mu.Lock()
	release := k.release
	if release != nil {
		k.dials++
	}
	k.mu.Unlock()
	if release != nil {
		select {
		case <-release:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				k.mu.Lock()
				k.cancelled++
				k.mu.Unlock()
			}
			return nil, ctx.Err()
		}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// gssapiBroker answers node's SASL GSSAPI exchange as a broker does, with
// the service keytab, until it completes.
func gssapiBroker(t *testing.T, h *harness, node int32, kt *keytab.Keytab, host string) {
	t.Helper()
	ex := saslfront.GSSAPI(saslfront.GSSAPIConfig{Keytab: kt, Host: host}).Start(saslfront.ConnInfo{Now: time.Now()})
	for range 4 {
		auth, ok := h.sel.LastSent(node)
		require.True(t, ok)
		require.Equal(t, protocol.KeySaslAuthenticate, auth.Header.APIKey)
		out, _, err := ex.Step(auth.Body.(*protocol.SaslAuthenticateRequest).AuthBytes)
		require.NoError(t, err)
		h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: out})
		require.Empty(t, h.poll())
		if h.c.ConnectionState(node) == network.Ready {
			return
		}
	}
	t.Fatalf("node %d: the GSSAPI exchange did not complete", node)
}

// kdcNodes are brokers of two hosts, hence of two service principals.
var kdcNodes = []network.Node{{ID: 1, Host: "127.0.0.1", Port: 9091}, {ID: 2, Host: "localhost", Port: 9092}}

// heldKDCMechanism starts a KDC with the client's and kdcNodes' service
// principals, and returns the brokers' keytab and a GSSAPI mechanism
// whose KDC exchanges (bounded by timeout) the returned heldKDC holds.
func heldKDCMechanism(t *testing.T, timeout time.Duration) (*keytab.Keytab, *heldKDC, *network.GSSAPIMechanism) {
	t.Helper()
	kdc := krb5test.Start(t)
	kdc.AddPrincipal(t, "client")
	kdc.AddPrincipal(t, "kafka/127.0.0.1")
	kdc.AddPrincipal(t, "kafka/localhost")
	kt, err := keytab.Load(kdc.Keytab(t, "kafka.keytab", "kafka/127.0.0.1", "kafka/localhost"))
	require.NoError(t, err)
	held := &heldKDC{}
	mech, err := network.NewGSSAPIMechanism(network.GSSAPIConfig{
		KeytabFile: kdc.Keytab(t, "client.keytab", "client"), ConfigFile: kdc.Conf, Dial: held.dial, Timeout: timeout,
	})
	require.NoError(t, err)
	return kt, held, mech
}

// awaitTicket polls until the exchange with node starts (its service
// ticket came), checking that the mechanism woke the Client: it had been
// woken before times.
func awaitTicket(t *testing.T, h *harness, node int32, before int) {
	t.Helper()
	kafkatest.WaitFor(t, 30*time.Second, "the exchange with the service ticket", func() bool {
		require.Empty(t, h.poll())
		return len(h.sel.SentKey(node, protocol.KeySaslAuthenticate)) > 0
	})
	assert.Greater(t, h.sel.Wakeups(), before, "the mechanism woke the Client")
}

// While the KDC does not answer the request for broker 2's service
// ticket, the Client goes on polling: a produce to broker 1, already
// authenticated with Kerberos, completes. Once the KDC answers, the
// mechanism wakes the Client and broker 2's exchange goes on.
func TestGSSAPIServiceTicketOffTheLoop(t *testing.T) {
	kt, held, mech := heldKDCMechanism(t, time.Minute)
	h := newHarness(t, reauthConfig(mech), kdcNodes...)

	handshake(t, h, 1)
	assert.Empty(t, h.sel.SentKey(1, protocol.KeySaslAuthenticate), "waits for the service ticket")
	awaitTicket(t, h, 1, 0)
	gssapiBroker(t, h, 1, kt, "127.0.0.1")

	held.hold()
	handshake(t, h, 2)
	kafkatest.WaitFor(t, 30*time.Second, "the KDC to be asked for broker 2's ticket", func() bool { return held.waiting() > 0 })
	require.Empty(t, h.poll())
	assert.Equal(t, network.Authenticating, h.c.ConnectionState(2))
	assert.Empty(t, h.sel.SentKey(2, protocol.KeySaslAuthenticate))

	produceWhileWaiting(t, h, 1, 2, "the produce to broker 1 completes while the KDC holds broker 2's ticket")

	wakeups := h.sel.Wakeups()
	held.unhold()
	awaitTicket(t, h, 2, wakeups)
	gssapiBroker(t, h, 2, kt, "localhost")
}

// fetchesRunning reports whether a goroutine fetches a service ticket.
func fetchesRunning() bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "fetchInBackground")
}

// A KDC exchange for a service ticket lasts while a connection waits for
// it: a Client that closes leaves it to another Client still waiting;
// the end of the last waiting connection (closed by the broker, or its
// Client closed) cancels it at once, its goroutine ends, and a later
// connection asks the KDC anew.
func TestGSSAPIServiceTicketFetchEndsWithItsWaiters(t *testing.T) {
	kt, held, mech := heldKDCMechanism(t, time.Hour)
	client := func() *harness { return newHarness(t, reauthConfig(mech), kdcNodes...) }
	awaitDial := func(n int) {
		t.Helper()
		kafkatest.WaitFor(t, 30*time.Second, "the KDC to be asked", func() bool { return held.waiting() >= n })
	}
	awaitCancel := func(n int) {
		t.Helper()
		kafkatest.WaitFor(t, 30*time.Second, "the KDC exchange to be cancelled", func() bool { return held.cancels() == n })
		kafkatest.WaitFor(t, 30*time.Second, "the fetch's goroutine to end", func() bool { return !fetchesRunning() })
	}

	// Two Clients wait for broker 1's ticket; one closes, the other gets it.
	held.hold()
	a, b := client(), client()
	handshake(t, a, 1)
	handshake(t, b, 1)
	awaitDial(1)
	a.c.Close()
	held.unhold()
	awaitTicket(t, b, 1, 0)
	gssapiBroker(t, b, 1, kt, "127.0.0.1")
	assert.Zero(t, held.cancels())

	// The broker closes the only connection waiting for broker 2's ticket.
	held.hold()
	conn := handshake(t, b, 2)
	awaitDial(2)
	b.sel.Disconnect(conn, io.EOF)
	require.Empty(t, b.poll())
	awaitCancel(1)

	// The only Client waiting for it closes.
	c := client()
	handshake(t, c, 2)
	awaitDial(3)
	c.c.Close()
	awaitCancel(2)

	// Then a new connection asks the KDC anew.
	d := client()
	handshake(t, d, 2)
	awaitDial(4)
	held.unhold()
	awaitTicket(t, d, 2, 0)
	gssapiBroker(t, d, 2, kt, "localhost")
}
