package sender

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// unreachable is a producer whose bootstrap address refuses every
// connection, stepped by hand.
type unreachable struct {
	t       *testing.T
	clock   *networktest.ManualClock
	sel     *networktest.MockSelector
	p       *Producer
	notices []network.Notice
}

func newUnreachable(t *testing.T, config func(*config)) *unreachable {
	t.Helper()
	u := &unreachable{t: t, clock: networktest.NewManualClock(time.Unix(1_700_000_000, 0)), sel: networktest.NewMockSelector()}
	cfg := testConfig()
	cfg.Network.Notify = func(n network.Notice) { u.notices = append(u.notices, n) }
	if config != nil {
		config(&cfg)
	}
	p, err := newProducer(cfg, u.sel, u.clock)
	require.NoError(t, err)
	u.p = p
	t.Cleanup(p.sender.client.Close)
	return u
}

// step runs one Sender turn and refuses the connections it started.
func (u *unreachable) step(d time.Duration) {
	u.clock.Advance(d)
	u.p.sender.runOnce()
	for _, c := range u.sel.Connects() {
		if !u.sel.IsClosed(c.Conn) {
			u.sel.FailConnect(c.Conn, syscall.ECONNREFUSED)
		}
	}
	u.p.sender.runOnce()
}

// runFor steps the Sender for d of manual time.
func (u *unreachable) runFor(d time.Duration) {
	for end := u.clock.Now().Add(d); u.clock.Now().Before(end); {
		u.step(100 * time.Millisecond)
	}
}

func TestBootstrapTimeoutStopsTheProducer(t *testing.T) {
	u := newUnreachable(t, nil) // the default bootstrap timeout: 10s
	u.step(0)
	require.Len(t, u.notices, 1, "the first failure is told at once")
	assert.Equal(t, network.NoticeBootstrapFailure, u.notices[0].Kind)
	assert.Contains(t, u.notices[0].String(), "127.0.0.1:9090: disconnected: cannot connect: connection refused")

	u.runFor(9800 * time.Millisecond)
	require.NoError(t, u.p.FatalError(), "not before the bootstrap timeout")
	assert.Len(t, u.notices, 1, "retries are silent")
	u.runFor(300 * time.Millisecond)
	err := u.p.FatalError()
	require.Error(t, err)
	var berr *network.BootstrapError
	require.ErrorAs(t, err, &berr)
	assert.Equal(t, network.DefaultBootstrapTimeout, berr.Timeout)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	select {
	case <-u.p.Stopped():
	default:
		t.Fatal("Stopped is closed")
	}
	// A record waiting for its topic's metadata gets the bootstrap error.
	rec := &Record{Topic: "t", Partition: -1, Value: []byte("v")}
	assert.ErrorIs(t, produceTo(u.p, context.Background(), rec, Position{Source: 1, Record: 1}), network.ErrBootstrap)
}

// A record already waiting for metadata when the bootstrap fails is
// released with the bootstrap error, not at its own timeout.
func TestBootstrapFailureReleasesAWaitingSend(t *testing.T) {
	u := newUnreachable(t, func(c *config) { c.Network.BootstrapTimeout = time.Second })
	errc := make(chan error, 1)
	go func() {
		errc <- produceTo(u.p, context.Background(), &Record{Topic: "t", Partition: -1, Value: []byte("v")}, Position{Source: 1, Record: 1})
	}()
	waitUntil(t, "Send to ask for the topic", func() bool { return len(u.p.md.Topics()) == 1 })
	u.runFor(1200 * time.Millisecond)
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, network.ErrBootstrap)
		assert.Contains(t, err.Error(), "no bootstrap broker answered within 1s")
	case <-time.After(10 * time.Second):
		t.Fatal("Send still blocked after the bootstrap failed")
	}
}

// A zero bootstrap timeout waits up to the delivery timeout.
func TestZeroBootstrapTimeoutIsTheDeliveryTimeout(t *testing.T) {
	u := newUnreachable(t, func(c *config) {
		c.Network.BootstrapTimeout = 0
		c.Accumulator.DeliveryTimeout = 20 * time.Second
	})
	u.runFor(19 * time.Second)
	require.NoError(t, u.p.FatalError())
	u.runFor(1200 * time.Millisecond)
	var berr *network.BootstrapError
	require.ErrorAs(t, u.p.FatalError(), &berr)
	assert.Equal(t, 20*time.Second, berr.Timeout)
}

// Once the cluster answered, an unreachable broker is retried until the
// delivery timeout, as before: no bootstrap failure.
func TestNoBootstrapFailureOnceReached(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: configs(nonIdempotent, func(c *config) { c.Network.BootstrapTimeout = time.Second })})
	f.sel.AutoConnect(false)
	f.sel.AutoRespond(protocol.KeyApiVersions, nil)
	for _, c := range f.sel.Connects() {
		f.sel.Disconnect(c.Conn, syscall.ECONNRESET)
	}
	pos := f.send("t", 0)
	for range 50 {
		f.advanceStep(100 * time.Millisecond)
	}
	assert.NoError(t, f.p.FatalError())
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Empty(t, f.outcomes[pos], "still retrying")
}

// zstd to a broker whose Produce stops below v7 (Kafka before 2.1) fails
// every record at once, before anything is sent, as the Java client does.
func TestZstdToABrokerBeforeKafka21(t *testing.T) {
	old := networktest.DefaultApiVersions()
	for i := range old.ApiKeys {
		if old.ApiKeys[i].ApiKey == int16(protocol.KeyProduce) {
			old.ApiKeys[i].MaxVersion = 6
		}
	}
	f := newFixture(t, fixtureOptions{
		config: func(c *config) { c.Accumulator.Codec = protocol.CodecZstd },
		setup:  func(f *fixture) { f.sel.AutoReady(old) },
	})
	pos := f.sendN("t", 0, 3)
	f.advanceStep(testLinger)
	f.step()
	assert.Empty(t, f.allProduce(), "nothing sent")
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range pos {
		require.Len(t, f.outcomes[p], 1)
		err := f.outcomes[p][0].err
		assert.ErrorIs(t, err, protocol.ErrUnsupportedCompressionType)
		assert.Contains(t, err.Error(), "zstd needs Produce v7 (Kafka 2.1 or newer), the broker speaks at most v6")
	}
}
