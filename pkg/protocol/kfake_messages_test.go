package protocol

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// msgConn speaks our messages to a broker over one plain connection.
type msgConn struct {
	t    *testing.T
	conn net.Conn
	corr int32
}

func msgDial(t *testing.T, addr string) *msgConn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	// A guard against a hang, not a timing assertion.
	require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
	return &msgConn{t: t, conn: conn}
}

// send writes req at version as one vectored write and returns the
// response payload after the size prefix.
func (c *msgConn) send(req Request, version int16) (corr int32, payload []byte) {
	c.t.Helper()
	c.corr++
	var w Writer
	AppendRequestFrame(&w, &RequestHeader{APIKey: req.Key(), APIVersion: version, CorrelationID: c.corr, ClientID: msgPtr("kproduce-test")}, req)
	bufs := net.Buffers(w.Buffers(nil))
	_, err := bufs.WriteTo(c.conn)
	require.NoError(c.t, err)

	var prefix [4]byte
	_, err = io.ReadFull(c.conn, prefix[:])
	require.NoError(c.t, err)
	size, err := FrameSize(prefix, DefaultMaxFrameSize)
	require.NoError(c.t, err)
	payload = make([]byte, size)
	_, err = io.ReadFull(c.conn, payload)
	require.NoError(c.t, err)
	return c.corr, payload
}

// roundTrip sends req at version and decodes the response.
func (c *msgConn) roundTrip(req Request, version int16) Response {
	c.t.Helper()
	corr, payload := c.send(req, version)
	resp := req.NewResponse()
	h, err := DecodeResponse(payload, req.Key(), version, resp)
	require.NoError(c.t, err)
	require.Equal(c.t, corr, h.CorrelationID)
	return resp
}

func msgKfake(t *testing.T) (*kfake.Cluster, string) {
	t.Helper()
	c := kafkatest.NewCluster(t,
		kfake.NumBrokers(1),
		kfake.SeedTopics(3, "orders"),
		kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "user", "pass"),
	)
	return c, c.ListenAddrs()[0]
}

func TestMessagesAgainstKfake(t *testing.T) {
	_, addr := msgKfake(t)
	c := msgDial(t, addr)
	// The steps share one connection and run in order.
	t.Run("ApiVersions v3", func(t *testing.T) { msgKfakeApiVersions(t, c) })
	t.Run("SASL PLAIN", func(t *testing.T) { msgKfakeSasl(t, c) })
	t.Run("Metadata v12", func(t *testing.T) { msgKfakeMetadata(t, c, addr) })
	var pid int64
	var epoch int16
	t.Run("InitProducerId v4", func(t *testing.T) {
		resp := c.roundTrip(&InitProducerIdRequest{TransactionTimeoutMs: 60_000, ProducerID: -1, ProducerEpoch: -1}, 4).(*InitProducerIdResponse)
		require.Zero(t, resp.ErrorCode)
		assert.GreaterOrEqual(t, resp.ProducerID, int64(0))
		pid, epoch = resp.ProducerID, resp.ProducerEpoch
	})
	t.Run("Produce v9, v3, v11", func(t *testing.T) { msgKfakeProduce(t, c, pid, epoch) })
	t.Run("CreateTopics v7 and v2", func(t *testing.T) { msgKfakeCreateTopics(t, c) })
	t.Run("records read back by kgo", func(t *testing.T) {
		got := msgConsume(t, addr, "orders", 2, 9)
		for i, rec := range got {
			j := i % 3
			if j == 2 {
				assert.Nil(t, rec.Key, "record %d", i)
			} else {
				assert.Equal(t, []byte{'k', byte('0' + j)}, rec.Key, "record %d", i)
			}
			assert.Len(t, rec.Value, 10)
			assert.Equal(t, byte('a'+j), rec.Value[0])
			require.Len(t, rec.Headers, 2)
			assert.Equal(t, kgo.RecordHeader{Key: "h", Value: []byte{byte(j)}}, rec.Headers[0])
			assert.Equal(t, int64(i), rec.Offset)
			assert.Equal(t, pid, rec.ProducerID)
		}
	})
}

func msgKfakeApiVersions(t *testing.T, c *msgConn) {
	corr, payload := c.send(&ApiVersionsRequest{ClientSoftwareName: "kproduce", ClientSoftwareVersion: "0.0.1"}, 3)
	require.Equal(t, corr, int32(binary.BigEndian.Uint32(payload)), "response header v0")
	resp, err := DecodeApiVersionsResponse(payload[4:], 3)
	require.NoError(t, err)
	assert.Zero(t, resp.ErrorCode)
	for _, key := range []APIKey{KeyProduce, KeyMetadata, KeyInitProducerId, KeySaslAuthenticate, KeySaslHandshake} {
		vr, ok := resp.Find(key)
		require.True(t, ok, key.String())
		cv, _ := ClientVersions(key)
		assert.LessOrEqual(t, vr.Min, cv.Min, key.String())
		assert.GreaterOrEqual(t, vr.Max, cv.Max, key.String())
	}
}

func msgKfakeSasl(t *testing.T, c *msgConn) {
	hs := c.roundTrip(&SaslHandshakeRequest{Mechanism: "GSSAPI"}, 1).(*SaslHandshakeResponse)
	assert.ErrorIs(t, ErrorForCode(hs.ErrorCode), ErrUnsupportedSaslMechanism)
	assert.Contains(t, hs.Mechanisms, "PLAIN")

	hs = c.roundTrip(&SaslHandshakeRequest{Mechanism: "PLAIN"}, 1).(*SaslHandshakeResponse)
	require.Zero(t, hs.ErrorCode)
	auth := c.roundTrip(&SaslAuthenticateRequest{AuthBytes: []byte("\x00user\x00pass")}, 2).(*SaslAuthenticateResponse)
	require.Zero(t, auth.ErrorCode, "%v", auth.ErrorMessage)
}

func msgKfakeMetadata(t *testing.T, c *msgConn, addr string) {
	resp := c.roundTrip(&MetadataRequest{Topics: []MetadataRequestTopic{{Name: msgPtr("orders")}}}, 12).(*MetadataResponse)
	require.Len(t, resp.Brokers, 1)
	host, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	assert.Equal(t, host, resp.Brokers[0].Host)
	assert.Equal(t, port, strconv.Itoa(int(resp.Brokers[0].Port)))
	require.Len(t, resp.Topics, 1)
	topic := resp.Topics[0]
	assert.Zero(t, topic.ErrorCode)
	assert.Equal(t, "orders", *topic.Name)
	assert.NotEqual(t, [16]byte{}, topic.TopicID)
	require.Len(t, topic.Partitions, 3)
	assert.Equal(t, resp.Brokers[0].NodeID, topic.Partitions[2].LeaderID)
}

func msgKfakeProduce(t *testing.T, c *msgConn, pid int64, epoch int16) {
	for i, v := range []int16{9, 3, 11} {
		batch := msgTestBatch(t, 3, 10, pid, epoch, int32(3*i))
		req := &ProduceRequest{Acks: -1, TimeoutMs: 5000, Topics: []ProduceRequestTopic{
			{Name: "orders", Partitions: []ProduceRequestPartition{{Index: 2, Records: batch}}},
		}}
		resp := c.roundTrip(req, v).(*ProduceResponse)
		require.Len(t, resp.Topics, 1)
		require.Len(t, resp.Topics[0].Partitions, 1)
		p := resp.Topics[0].Partitions[0]
		require.Zero(t, p.ErrorCode, "v%d: %v", v, ErrorForCode(p.ErrorCode))
		assert.Equal(t, int32(2), p.Index)
		assert.Equal(t, int64(3*i), p.BaseOffset, "v%d", v)
	}
}

func msgKfakeCreateTopics(t *testing.T, c *msgConn) {
	req := &CreateTopicsRequest{TimeoutMs: 5000, Topics: []CreateTopicsRequestTopic{
		{Name: "fresh", NumPartitions: 2, ReplicationFactor: 1},
	}}
	resp := c.roundTrip(req, 7).(*CreateTopicsResponse)
	require.Len(t, resp.Topics, 1)
	assert.Zero(t, resp.Topics[0].ErrorCode)
	assert.Equal(t, int32(2), resp.Topics[0].NumPartitions)
	assert.NotEqual(t, [16]byte{}, resp.Topics[0].TopicID)

	again := c.roundTrip(req, 2).(*CreateTopicsResponse)
	require.Len(t, again.Topics, 1)
	assert.ErrorIs(t, ErrorForCode(again.Topics[0].ErrorCode), ErrTopicAlreadyExists)
	assert.Equal(t, int32(-1), again.Topics[0].NumPartitions, "absent before v5")
}

// msgConsume reads n records of topic's partition from the start with kgo.
func msgConsume(t *testing.T, addr, topic string, partition int32, n int) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	recs, err := kafkatest.Consume(ctx, n, kgo.SeedBrokers(addr), kafkatest.FromStart(topic, partition),
		kgo.SASL(plain.Auth{User: "user", Pass: "pass"}.AsMechanism()))
	require.NoError(t, err)
	return recs
}
