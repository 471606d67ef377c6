package network_test

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// assertFinal checks node 1 failed for good with an error wrapping is.
func assertFinal(t *testing.T, h *harness, conn network.ConnID, is error, text ...string) {
	t.Helper()
	assert.True(t, h.sel.IsClosed(conn))
	require.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(1))
	assert.True(t, h.c.ConnectionFailed(1))
	err := h.c.AuthenticationError(1)
	require.Error(t, err)
	assert.ErrorIs(t, err, is)
	assert.NotErrorIs(t, err, network.ErrDisconnected)
	assert.Contains(t, err.Error(), "broker 1 (127.0.0.1:9091): ")
	for _, s := range text {
		assert.Contains(t, err.Error(), s)
	}
	assert.ErrorIs(t, h.md.LastError(), is, "the metadata reports it too")
	connects := len(connectsTo(h.sel, 1))
	h.advance(time.Hour)
	assert.False(t, h.c.Ready(1, h.now()))
	h.poll()
	assert.Len(t, connectsTo(h.sel, 1), connects, "never retried")
}

// assertRetried checks node 1 is disconnected and reconnects after its
// backoff, and returns the new connection.
func assertRetried(t *testing.T, h *harness) network.ConnID {
	t.Helper()
	require.Equal(t, network.Disconnected, h.c.ConnectionState(1))
	assert.NoError(t, h.c.AuthenticationError(1))
	h.advance(time.Second)
	require.False(t, h.c.Ready(1, h.now()))
	conn, ok := h.sel.LastConn(1)
	require.True(t, ok)
	return conn
}

func TestFinalSetupFailures(t *testing.T) {
	tlsErr := fmt.Errorf("%w: tls: failed to verify certificate: %w", network.ErrTLSHandshake, x509.UnknownAuthorityError{})
	notKafka := fmt.Errorf("%w: it answered like an HTTP server", network.ErrNotKafka)
	tests := []struct {
		name string
		// fail makes conn fail while connecting or checking versions.
		fail func(h *harness, conn network.ConnID)
		is   error
		text []string
	}{
		{"TLS handshake fails", func(h *harness, conn network.ConnID) { h.sel.FailConnect(conn, tlsErr) },
			network.ErrTLSHandshake, []string{"cannot connect: tls handshake failed"}},
		{"TLS alert on the first read", func(h *harness, conn network.ConnID) {
			h.sel.CompleteConnect(conn)
			h.poll()
			h.sel.Disconnect(conn, fmt.Errorf("%w: remote error: tls: certificate required", network.ErrTLSHandshake))
		}, network.ErrTLSHandshake, []string{"certificate required"}},
		{"peer is not Kafka", func(h *harness, conn network.ConnID) {
			h.sel.CompleteConnect(conn)
			h.poll()
			h.sel.Disconnect(conn, notKafka)
		}, network.ErrNotKafka, []string{"an HTTP server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			require.False(t, h.c.Ready(1, h.now()))
			conn, _ := h.sel.LastConn(1)
			tt.fail(h, conn)
			require.Empty(t, h.poll())
			assertFinal(t, h, conn, tt.is, tt.text...)
		})
	}
}

// earlyClose is what the socket selector reports for a TLS listener spoken
// to in plaintext.
var earlyClose = fmt.Errorf("%w (is the listener TLS? try --tls): %w", network.ErrClosedBeforeResponse, io.EOF)

// closeEarly connects node 1 and has the broker close before answering
// ApiVersions.
func closeEarly(h *harness, conn network.ConnID) {
	h.sel.CompleteConnect(conn)
	h.poll()
	h.sel.Disconnect(conn, earlyClose)
	h.poll()
}

func TestEarlyClosesInARowAreFinal(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	closeEarly(h, conn)
	// Once may be a broker restarting.
	conn = assertRetried(t, h)
	closeEarly(h, conn)
	assertFinal(t, h, conn, network.ErrClosedBeforeResponse,
		"not retrying after 2 connections in a row were closed before any response", "(is the listener TLS? try --tls): EOF")
}

func TestEarlyClosesNotInARow(t *testing.T) {
	tests := []struct {
		name string
		// between happens on conn between two early closes.
		between func(h *harness, conn network.ConnID)
	}{
		{"a connection became ready", func(h *harness, conn network.ConnID) {
			h.sel.CompleteConnect(conn)
			h.poll()
			sent, _ := h.sel.LastSent(1)
			h.sel.RespondTo(sent, networktest.DefaultApiVersions())
			h.poll()
			require.Equal(t, network.Ready, h.c.ConnectionState(1))
			h.sel.Disconnect(conn, io.EOF)
			h.poll()
		}},
		{"the connection was refused", func(h *harness, conn network.ConnID) {
			h.sel.FailConnect(conn, syscall.ECONNREFUSED)
			h.poll()
		}},
		{"the connection setup timed out", func(h *harness, conn network.ConnID) {
			h.advance(time.Minute)
			h.poll()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			require.False(t, h.c.Ready(1, h.now()))
			conn, _ := h.sel.LastConn(1)
			closeEarly(h, conn)
			tt.between(h, assertRetried(t, h))
			closeEarly(h, assertRetried(t, h))
			conn = assertRetried(t, h)
			closeEarly(h, conn)
			assertFinal(t, h, conn, network.ErrClosedBeforeResponse, "not retrying after 2 connections")
		})
	}
}

func TestOrdinaryFailuresAreRetried(t *testing.T) {
	for _, cause := range []error{
		syscall.ECONNREFUSED,
		fmt.Errorf("tls handshake: %w", syscall.ECONNRESET),
		fmt.Errorf("connection closed by the broker: %w", io.EOF),
		errors.New("read: i/o error"),
	} {
		h := newHarness(t, baseConfig(), testNodes()...)
		for range 3 {
			require.False(t, h.c.Ready(1, h.now()))
			conn, _ := h.sel.LastConn(1)
			h.sel.FailConnect(conn, cause)
			h.poll()
			assertRetried(t, h)
		}
	}
}

func TestMetadataFailsWhenEveryNodeFailedForGood(t *testing.T) {
	bootstrap := []network.Node{{ID: -1, Host: "127.0.0.1", Port: 9091}, {ID: -2, Host: "127.0.0.1", Port: 9092}}
	h := newHarness(t, baseConfig(), bootstrap...)
	tlsErr := fmt.Errorf("%w: tls: failed to verify certificate: %w", network.ErrTLSHandshake, x509.UnknownAuthorityError{})
	h.poll() // a fetch is due: connect to every bootstrap broker
	require.Len(t, h.sel.Connects(), 2)
	for _, call := range h.sel.Connects() {
		h.sel.FailConnect(call.Conn, tlsErr)
	}
	h.poll()
	for _, b := range bootstrap {
		require.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(b.ID))
	}
	var berr *network.BootstrapError
	require.ErrorAs(t, h.c.BootstrapError(), &berr, "every address failed for good: the bootstrap failed")
	assert.Zero(t, berr.Timeout)
	require.Len(t, berr.Addresses, 2)
	// Whoever waits for metadata is woken with the failure, again after
	// each refresh backoff, without a new connection.
	updated := h.md.Updated()
	h.advance(time.Minute)
	h.poll()
	select {
	case <-updated:
	default:
		t.Fatal("metadata waiters not woken")
	}
	assert.ErrorIs(t, h.md.LastError(), network.ErrTLSHandshake)
	assert.ErrorIs(t, h.md.LastError(), network.ErrBootstrap)
	assert.Len(t, h.sel.Connects(), 2, "each broker tried once")
	// Not while a node can still be used.
	h2 := newHarness(t, baseConfig(), bootstrap...)
	h2.poll()
	require.Len(t, h2.sel.Connects(), 2)
	h2.sel.FailConnect(h2.sel.Connects()[0].Conn, tlsErr)
	updated = h2.md.Updated()
	h2.poll()
	assert.Equal(t, network.Connecting, h2.c.ConnectionState(h2.sel.Connects()[1].Node.ID))
	h2.advance(time.Millisecond)
	h2.poll()
	assert.NoError(t, h2.c.BootstrapError())
	select {
	case <-updated:
		assert.NotErrorIs(t, h2.md.LastError(), network.ErrBootstrap)
	default:
	}
}
