package network_test

import (
	"encoding/hex"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// notices collects the Client's notices.
type notices struct{ got []network.Notice }

func (n *notices) add(x network.Notice) { n.got = append(n.got, x) }

func (n *notices) kinds() []network.NoticeKind {
	var out []network.NoticeKind
	for _, x := range n.got {
		out = append(out, x.Kind)
	}
	return out
}

// bootstrapHarness is a client with two bootstrap addresses, a bootstrap
// timeout and a notice collector.
func bootstrapHarness(t *testing.T, timeout time.Duration) (*harness, *notices) {
	t.Helper()
	ns := &notices{}
	cfg := baseConfig()
	cfg.BootstrapTimeout = timeout
	cfg.Notify = ns.add
	return newHarness(t, cfg, bootstrapNodes(2)...), ns
}

func TestBootstrapTimeoutNamesEveryAddress(t *testing.T) {
	h, ns := bootstrapHarness(t, 10*time.Second)
	updated := h.md.Updated()
	h.poll()
	calls := h.sel.Connects()
	require.Len(t, calls, 2)
	h.sel.FailConnect(calls[0].Conn, syscall.ECONNREFUSED)
	h.sel.FailConnect(calls[1].Conn, &net.DNSError{Err: "no such host", Name: "kafak.invalid", IsNotFound: true})
	h.poll()

	// Each address's first failure is told at once, with the deadline.
	require.Len(t, ns.got, 2)
	for _, n := range ns.got {
		assert.Equal(t, network.NoticeBootstrapFailure, n.Kind)
		assert.False(t, n.Final)
		assert.Equal(t, h.now().Add(10*time.Second), n.Deadline)
	}
	assert.Contains(t, ns.got[0].String(), "bootstrap broker "+calls[0].Node.Addr()+": disconnected: cannot connect: connection refused"+
		" (is a broker listening there? check the host and port); retrying for up to 10s")
	assert.Contains(t, ns.got[1].String(), `(no such host "kafak.invalid": check the name, or is the broker not started yet?)`)

	// Retrying is silent; the Poll wait never passes the deadline.
	for range 20 {
		h.advance(400 * time.Millisecond)
		h.poll()
		for _, c := range h.sel.Connects()[2:] {
			if !h.sel.IsClosed(c.Conn) {
				h.sel.FailConnect(c.Conn, syscall.ECONNREFUSED)
			}
		}
	}
	require.Len(t, ns.got, 2, "one notice per address")
	require.NoError(t, h.c.BootstrapError(), "not before the timeout")
	assert.Greater(t, len(h.sel.Connects()), 4, "retried meanwhile")
	h.advance(2 * time.Second)
	h.c.Poll(time.Hour, h.now())
	timeouts := h.sel.PollTimeouts()
	assert.LessOrEqual(t, timeouts[len(timeouts)-1], time.Duration(0), "the deadline bounds Poll's wait")

	var berr *network.BootstrapError
	require.ErrorAs(t, h.c.BootstrapError(), &berr)
	assert.Equal(t, 10*time.Second, berr.Timeout)
	require.Len(t, berr.Addresses, 2)
	assert.Equal(t, "127.0.0.1:19092", berr.Addresses[0].Addr)
	assert.ErrorIs(t, berr, network.ErrBootstrap)
	assert.ErrorIs(t, berr, syscall.ECONNREFUSED)
	assert.Regexp(t, `^cannot reach the cluster: no bootstrap broker answered within 10s \(--bootstrap-timeout\): `+
		`bootstrap broker 127.0.0.1:19092: .*connection refused.*; bootstrap broker 127.0.0.1:19093: .*`, berr.Error())
	select {
	case <-updated:
	default:
		t.Fatal("metadata waiters are woken")
	}
	assert.ErrorIs(t, h.md.LastError(), network.ErrBootstrap)
}

// While bootstrapping, an attempt that hangs is given half the bootstrap
// timeout, so that it fails, saying why, before the Client gives up.
func TestBootstrapCapsAttemptsThatHang(t *testing.T) {
	h, _ := bootstrapHarness(t, 5*time.Second)
	h.poll()
	calls := h.sel.Connects()
	for _, c := range calls {
		assert.Equal(t, 2500*time.Millisecond, c.Timeout, "the connection setup timeout")
	}
	h.sel.CompleteConnect(calls[0].Conn) // connected, never answers ApiVersions
	h.poll()
	h.advance(5 * time.Second)
	h.poll()
	var berr *network.BootstrapError
	require.ErrorAs(t, h.c.BootstrapError(), &berr)
	assert.Contains(t, berr.Error(), "bootstrap broker "+calls[0].Node.Addr()+
		": request timed out: no response to ApiVersions v3 (correlation id 0) within 2.5s (is this the address of a Kafka listener?)")
	assert.Contains(t, berr.Error(), "bootstrap broker "+calls[1].Node.Addr()+": disconnected: connection setup timed out after 2.5s")
}

func TestNoBootstrapTimeoutOnceReached(t *testing.T) {
	h, ns := bootstrapHarness(t, time.Second)
	h.sel.AutoReady(nil)
	h.poll()
	h.poll()
	h.advance(h.md.TimeToNextUpdate(h.now()))
	h.poll()
	md := h.sel.SentKey(h.sel.Connects()[0].Node.ID, protocol.KeyMetadata)
	if len(md) == 0 {
		md = h.sel.SentKey(h.sel.Connects()[1].Node.ID, protocol.KeyMetadata)
	}
	require.Len(t, md, 1)
	h.sel.RespondTo(md[0], metadataResponse(testNodes(), nil))
	h.poll()
	require.True(t, h.c.Reached())
	h.advance(time.Hour)
	h.poll()
	assert.NoError(t, h.c.BootstrapError())
	assert.Empty(t, ns.got)
}

func TestBootstrapWithoutTimeoutEndsOnlyWhenEveryAddressIsFinal(t *testing.T) {
	h, ns := bootstrapHarness(t, 0)
	h.poll()
	for _, c := range h.sel.Connects() {
		h.sel.FailConnect(c.Conn, syscall.ECONNREFUSED)
	}
	h.poll()
	h.advance(time.Hour)
	h.poll()
	require.NoError(t, h.c.BootstrapError(), "no timeout: retried")
	notKafka := errors.Join(network.ErrNotKafka, errors.New("it answered like an HTTP server"))
	conns := h.sel.Connects()
	require.Len(t, conns, 4)
	h.sel.FailConnect(conns[2].Conn, notKafka)
	h.poll()
	require.NoError(t, h.c.BootstrapError(), "one address left")
	h.sel.FailConnect(conns[3].Conn, notKafka)
	h.poll()
	var berr *network.BootstrapError
	require.ErrorAs(t, h.c.BootstrapError(), &berr)
	assert.Zero(t, berr.Timeout)
	assert.ErrorIs(t, berr, network.ErrNotKafka)
	assert.Contains(t, berr.Error(), "cannot reach the cluster: every bootstrap broker failed for good: bootstrap broker 127.0.0.1:19092: ")
	for _, a := range berr.Addresses {
		assert.True(t, a.Final, a.Addr)
	}
	// Each address: its first failure, then the final one.
	require.Len(t, ns.got, 4)
	for i, n := range ns.got {
		assert.Equal(t, i >= 2, n.Final)
		assert.Zero(t, n.Deadline)
	}
	assert.Contains(t, ns.got[0].String(), "; retrying")
	assert.Contains(t, ns.got[3].String(), "; not retrying this address")
}

// A listener that requires SASL answers ApiVersions, then closes the
// connection at the first other request. Without SASL configured, two such
// closes in a row end the address for good, with the hint.
func TestBootstrapSASLRequiredIsFinal(t *testing.T) {
	h, ns := bootstrapHarness(t, 10*time.Second)
	h.md.AddTopic("t")
	for attempt := 0; attempt < 2; attempt++ {
		h.poll()
		conn, ok := h.sel.LastConn(-1)
		require.True(t, ok)
		h.sel.CompleteConnect(conn)
		h.poll()
		av, _ := h.sel.LastSent(-1)
		require.Equal(t, protocol.KeyApiVersions, av.Header.APIKey)
		h.sel.RespondTo(av, networktest.DefaultApiVersions())
		h.advance(time.Second) // the refresh backoff
		h.poll()               // ready
		h.poll()               // Metadata
		md, _ := h.sel.LastSent(-1)
		require.Equal(t, protocol.KeyMetadata, md.Header.APIKey, "attempt %d", attempt)
		h.sel.Disconnect(conn, io.EOF)
		h.poll()
		h.advance(time.Second)
	}
	require.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(-1))
	err := h.c.AuthenticationError(-1)
	assert.ErrorIs(t, err, network.ErrClosedBeforeResponse)
	assert.Contains(t, err.Error(), "the broker answered ApiVersions, then closed the connection instead of answering"+
		" (does the listener require SASL? set --sasl-mechanism, --sasl-username and --sasl-password)")
	var first []network.Notice
	for _, n := range ns.got {
		if n.Node.ID == -1 {
			first = append(first, n)
		}
	}
	require.Len(t, first, 2, "the first failure and the final one")
	assert.Contains(t, first[0].String(), "does the listener require SASL?")
	assert.True(t, first[1].Final)
}

// librdkafka's mock cluster answers ApiVersions v3 with UNSUPPORTED_VERSION
// in a layout that leaves bytes over and lists no versions: as Kafka's
// Java client, the Client reads it leniently and retries at v0.
func TestApiVersionsLenientAnswerRetriesAtV0(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.CompleteConnect(conn)
	h.poll()
	first, _ := h.sel.LastSent(1)
	require.Equal(t, int16(3), first.Header.APIVersion)
	body, err := hex.DecodeString("00230100120000000200000000")
	require.NoError(t, err)
	payload := append([]byte{0, 0, 0, 0}, body...)
	payload[3] = byte(first.Header.CorrelationID)
	h.sel.Receive(conn, payload)
	require.Empty(t, h.poll())
	retry, _ := h.sel.LastSent(1)
	require.Equal(t, protocol.KeyApiVersions, retry.Header.APIKey)
	assert.Equal(t, int16(0), retry.Header.APIVersion)
	h.sel.RespondTo(retry, networktest.DefaultApiVersions())
	require.Empty(t, h.poll())
	assert.True(t, h.c.IsReady(1, h.now()))
}

// A zstd batch is refused below Produce v7 before anything is written.
func TestZstdBelowProduceV7IsNotSent(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	h.connect(1, versionsWith(protocol.KeyProduce, 3, 6))
	b := &protocol.RecordBatch{Attributes: int16(protocol.CodecZstd), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []protocol.Record{{Value: []byte("v")}}}
	records, err := b.AppendTo(nil, nil)
	require.NoError(t, err)
	body := &protocol.ProduceRequest{Acks: -1, TimeoutMs: 1000, Topics: []protocol.ProduceRequestTopic{{
		Name: "t", Partitions: []protocol.ProduceRequestPartition{{Index: 0, Records: records}}}}}
	before := len(h.sel.Sent(1))
	req := h.send(1, body, true, 0, nil)
	responses := h.poll()
	require.Len(t, responses, 1)
	assert.Same(t, req, responses[0].Request)
	assert.ErrorIs(t, responses[0].Err, protocol.ErrUnsupportedCompressionType)
	assert.Contains(t, responses[0].Err.Error(), "broker 1 (127.0.0.1:9091): ")
	assert.Contains(t, responses[0].Err.Error(), "zstd needs Produce v7 (Kafka 2.1 or newer), the broker speaks at most v6")
	assert.Len(t, h.sel.Sent(1), before, "nothing written")
	assert.Equal(t, network.Ready, h.c.ConnectionState(1), "the connection stays")
}

func TestOutageNoticedOncePerOutage(t *testing.T) {
	ns := &notices{}
	cfg := baseConfig()
	cfg.Notify = ns.add
	h := newHarness(t, cfg, testNodes()...)
	conn := h.connect(1, nil)
	h.send(1, produceRequest(), true, 0, nil)
	down := h.now()
	h.sel.Disconnect(conn, io.EOF)
	h.poll()
	// Reconnects keep failing: silent.
	for range 3 {
		h.advance(time.Second)
		require.False(t, h.c.Ready(1, h.now()))
		c, _ := h.sel.LastConn(1)
		h.sel.FailConnect(c, syscall.ECONNREFUSED)
		h.poll()
	}
	require.Equal(t, []network.NoticeKind{network.NoticeBrokerDown}, ns.kinds())
	assert.Equal(t, down, ns.got[0].Since)
	assert.Regexp(t, `^lost broker 1 \(127\.0\.0\.1:9091\) at \d\d:\d\d:\d\d: disconnected: EOF; `, ns.got[0].String())
	assert.Contains(t, ns.got[0].String(), "; retrying until it is back or the records time out")
	h.advance(time.Second)
	h.connect(1, nil)
	require.Equal(t, []network.NoticeKind{network.NoticeBrokerDown, network.NoticeBrokerUp}, ns.kinds())
	assert.Equal(t, down, ns.got[1].Since)
	assert.Equal(t, "broker 1 (127.0.0.1:9091) is back after 4s", ns.got[1].String())

	// An idle connection closed by the broker is no outage. (The due
	// metadata fetch is answered first.)
	h.poll()
	md := h.sel.SentKey(1, protocol.KeyMetadata)
	require.NotEmpty(t, md)
	h.sel.RespondTo(md[len(md)-1], metadataResponse(testNodes(), nil))
	h.poll()
	require.Zero(t, h.c.InFlightRequestCount(1))
	require.Positive(t, h.md.TimeToNextUpdate(h.now()))
	c, _ := h.sel.LastConn(1)
	h.sel.Disconnect(c, io.EOF)
	h.poll()
	assert.Len(t, ns.got, 2)
}

// A broker that refuses to authenticate the Client ends the bootstrap at
// once: the others take the same credentials. Its error is told once, by
// the BootstrapError, not by a notice per address.
func TestBootstrapEndsAtTheFirstAuthenticationFailure(t *testing.T) {
	ns := &notices{}
	cfg := baseConfig()
	cfg.BootstrapTimeout = 10 * time.Second
	cfg.Notify = ns.add
	cfg.SASL = network.PlainMechanism{Username: "u", Password: "p"}
	h := newHarness(t, cfg, bootstrapNodes(3)...)
	h.poll()
	calls := h.sel.Connects()
	require.Len(t, calls, 3)
	for _, c := range calls {
		h.sel.CompleteConnect(c.Conn)
	}
	h.poll()
	for _, c := range calls {
		sent, _ := h.sel.LastSent(c.Node.ID)
		h.sel.RespondTo(sent, networktest.DefaultApiVersions())
	}
	h.poll()
	msg := "Invalid username or password"
	refuse := func(node int32) {
		hs, _ := h.sel.LastSent(node)
		h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
		h.poll()
		auth, _ := h.sel.LastSent(node)
		require.Equal(t, protocol.KeySaslAuthenticate, auth.Header.APIKey)
		h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{ErrorCode: protocol.ErrSaslAuthenticationFailed.Code, ErrorMessage: &msg})
	}
	refuse(calls[1].Node.ID)
	h.poll()

	var berr *network.BootstrapError
	require.ErrorAs(t, h.c.BootstrapError(), &berr, "the first refusal ends the bootstrap")
	assert.ErrorIs(t, berr, network.ErrAuthentication)
	assert.Zero(t, berr.Timeout)
	assert.Equal(t, "bootstrap broker "+calls[1].Node.Addr()+": authentication failed: SASL PLAIN: "+
		protocol.ErrSaslAuthenticationFailed.Error()+": "+msg, berr.Error())

	refuse(calls[0].Node.ID) // a refusal after the end changes nothing
	h.poll()
	assert.Same(t, berr, h.c.BootstrapError())
	assert.Empty(t, ns.got, "the BootstrapError alone tells the failure")
}
