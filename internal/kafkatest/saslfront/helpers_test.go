package saslfront_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
)

// startFront starts a front with cfg in front of a kfake cluster of n
// brokers with topic "t".
func startFront(t *testing.T, cfg saslfront.Config, n int, opts ...kfake.Opt) (*saslfront.Front, *kfake.Cluster) {
	t.Helper()
	front := saslfront.New(cfg)
	base := []kfake.Opt{kfake.ListenFn(front.Listen), kfake.NumBrokers(n), kfake.SeedTopics(3, "t")}
	t.Cleanup(front.Close) // after the cluster: cleanups run last in, first out
	cluster := kafkatest.NewCluster(t, append(base, opts...)...)
	return front, cluster
}

// produceConsume produces n records with a kgo client authenticating
// with mech and reads them back; it returns the first error.
func produceConsume(t *testing.T, cluster *kfake.Cluster, mech sasl.Mechanism, n int) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.SASL(mech), kgo.DefaultProduceTopic("t"),
		kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.RequestRetries(1))
	require.NoError(t, err)
	defer cl.Close()
	for i := range n {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte{byte(i)}}).FirstErr(); err != nil {
			return err
		}
	}
	got := 0
	for got < n {
		fetches := cl.PollFetches(ctx)
		if err := fetches.Err0(); err != nil {
			return err
		}
		got += fetches.NumRecords()
	}
	return nil
}

// authError is the error of a kgo client's first request through a
// connection authenticated with mech.
func authError(t *testing.T, cluster *kfake.Cluster, mech sasl.Mechanism) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()[0]), kgo.SASL(mech), kgo.RequestRetries(0))
	require.NoError(t, err)
	defer cl.Close()
	_, err = cl.Request(ctx, kmsg.NewPtrMetadataRequest())
	return err
}

// rawConn speaks Kafka requests one at a time, for tests that need a
// client that misbehaves.
type rawConn struct {
	t    *testing.T
	c    net.Conn
	corr int32
	mu   sync.Mutex
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c}
}

// send writes req at its version and returns its correlation id.
func (r *rawConn) send(req kmsg.Request) int32 {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.corr++
	buf := make([]byte, 4, 64)
	buf = binary.BigEndian.AppendUint16(buf, uint16(req.Key()))
	buf = binary.BigEndian.AppendUint16(buf, uint16(req.GetVersion()))
	buf = binary.BigEndian.AppendUint32(buf, uint32(r.corr))
	buf = binary.BigEndian.AppendUint16(buf, 4)
	buf = append(buf, "test"...)
	if req.IsFlexible() {
		buf = append(buf, 0)
	}
	buf = req.AppendTo(buf)
	binary.BigEndian.PutUint32(buf, uint32(len(buf)-4))
	_, err := r.c.Write(buf)
	require.NoError(r.t, err)
	return r.corr
}

// recv reads the answer to req into resp; an error means the connection
// was closed.
func (r *rawConn) recv(req kmsg.Request, resp kmsg.Response) error {
	r.t.Helper()
	_ = r.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var size [4]byte
	if _, err := io.ReadFull(r.c, size[:]); err != nil {
		return err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(r.c, body); err != nil {
		return err
	}
	body = body[4:]
	resp.SetVersion(req.GetVersion())
	if resp.IsFlexible() && req.Key() != 18 {
		body = body[1:]
	}
	return resp.ReadFrom(body)
}

// roundTrip sends req and reads its answer.
func (r *rawConn) roundTrip(req kmsg.Request) (kmsg.Response, error) {
	r.t.Helper()
	r.send(req)
	resp := req.ResponseKind()
	return resp, r.recv(req, resp)
}

// authPlain authenticates with PLAIN at SaslHandshake v1.
func (r *rawConn) authPlain(user, pass string) *kmsg.SASLAuthenticateResponse {
	r.t.Helper()
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, "PLAIN"
	resp, err := r.roundTrip(hs)
	require.NoError(r.t, err)
	require.Zero(r.t, resp.(*kmsg.SASLHandshakeResponse).ErrorCode)
	auth := kmsg.NewPtrSASLAuthenticateRequest()
	auth.Version, auth.SASLAuthBytes = 2, []byte("\x00"+user+"\x00"+pass)
	aresp, err := r.roundTrip(auth)
	require.NoError(r.t, err)
	return aresp.(*kmsg.SASLAuthenticateResponse)
}

// authOAuth authenticates with OAUTHBEARER and the client-first message
// msg, and returns the session lifetime.
func (r *rawConn) authOAuth(msg string) int64 {
	r.t.Helper()
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, "OAUTHBEARER"
	_, err := r.roundTrip(hs)
	require.NoError(r.t, err)
	auth := kmsg.NewPtrSASLAuthenticateRequest()
	auth.Version, auth.SASLAuthBytes = 1, []byte(msg)
	resp, err := r.roundTrip(auth)
	require.NoError(r.t, err)
	require.Zero(r.t, resp.(*kmsg.SASLAuthenticateResponse).ErrorCode)
	return resp.(*kmsg.SASLAuthenticateResponse).SessionLifetimeMillis
}

// metadata sends a Metadata request and returns its error.
func (r *rawConn) metadata() error {
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 9
	_, err := r.roundTrip(req)
	return err
}

// manualClock is a front clock moved by the test.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
