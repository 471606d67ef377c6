package network

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A KDC that accepts the connection and never answers holds the exchange
// until its context ends: cancelling it (the Client closed) ends the read
// under way at once, long before the context's deadline.
func TestKDCExchangeCancelledWhileReading(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	tr := &kdcTransport{
		kdcs: func(context.Context, string) ([]string, error) { return []string{ln.Addr().String()}, nil },
		dial: defaultDialer,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := tr.exchange(ctx, "EXAMPLE.COM", []byte{0x6a, 0x00}, "client@EXAMPLE.COM", false)
		done <- err
	}()
	peer := <-accepted
	defer peer.Close()
	buf := make([]byte, 6)
	_, err = peer.Read(buf) // the request arrived: the exchange reads
	require.NoError(t, err)
	cancel()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the exchange goes on after its context was cancelled")
	}
	require.ErrorIs(t, err, ErrKDCUnreachable)
	assert.Contains(t, err.Error(), "no answer")
}

// With dns_lookup_kdc and no kdc line for the realm, the KDCs come from
// DNS, within the exchange's context.
func TestRealmKDCsLookupBoundByContext(t *testing.T) {
	cfg, err := config.NewFromString("[libdefaults]\n dns_lookup_kdc = true\n[realms]\n OTHER.TEST = {\n  kdc = kdc.other.test:88\n }\n")
	require.NoError(t, err)
	kdcs := realmKDCs(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = kdcs(ctx, "EXAMPLE.TEST")
	require.ErrorIs(t, err, context.Canceled, "looked up in DNS, within the context")
	addrs, err := kdcs(ctx, "OTHER.TEST")
	require.NoError(t, err, "krb5.conf's kdc lines need no look-up")
	assert.Equal(t, []string{"kdc.other.test:88"}, addrs)
}
