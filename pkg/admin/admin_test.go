package admin_test

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// testDeadline bounds every call that should succeed.
const testDeadline = 15 * time.Second

func newClient(t *testing.T, cfg admin.Config) *admin.Client {
	t.Helper()
	c, err := admin.New(cfg)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	t.Cleanup(cancel)
	return ctx
}

// assertSameMetadata compares our response with franz-go's.
func assertSameMetadata(t *testing.T, want *kmsg.MetadataResponse, got *protocol.MetadataResponse) {
	t.Helper()
	assert.Equal(t, want.ControllerID, got.ControllerID)
	assert.Equal(t, want.ClusterID, got.ClusterID)
	require.Len(t, got.Brokers, len(want.Brokers))
	for _, wb := range want.Brokers {
		i := slices.IndexFunc(got.Brokers, func(b protocol.MetadataResponseBroker) bool { return b.NodeID == wb.NodeID })
		require.GreaterOrEqual(t, i, 0, "broker %d", wb.NodeID)
		assert.Equal(t, wb.Host, got.Brokers[i].Host)
		assert.Equal(t, wb.Port, got.Brokers[i].Port)
	}
	require.Len(t, got.Topics, len(want.Topics))
	for _, wt := range want.Topics {
		i := slices.IndexFunc(got.Topics, func(tp protocol.MetadataResponseTopic) bool { return *tp.Name == *wt.Topic })
		require.GreaterOrEqual(t, i, 0, "topic %s", *wt.Topic)
		gt := got.Topics[i]
		assert.Equal(t, wt.ErrorCode, gt.ErrorCode, *wt.Topic)
		require.Len(t, gt.Partitions, len(wt.Partitions), *wt.Topic)
		for _, wp := range wt.Partitions {
			j := slices.IndexFunc(gt.Partitions, func(p protocol.MetadataResponsePartition) bool { return p.PartitionIndex == wp.Partition })
			require.GreaterOrEqual(t, j, 0)
			gp := gt.Partitions[j]
			assert.Equal(t, wp.Leader, gp.LeaderID)
			assert.Equal(t, wp.Replicas, gp.ReplicaNodes)
			assert.Equal(t, wp.ISR, gp.IsrNodes)
			assert.Equal(t, wp.ErrorCode, gp.ErrorCode)
		}
	}
}

func TestMetadataAllTopics(t *testing.T) {
	cluster := kafkatest.AdminCluster(t)
	c := newClient(t, admin.Config{Brokers: cluster.ListenAddrs()})
	got, err := c.Metadata(testContext(t), nil)
	require.NoError(t, err)
	assertSameMetadata(t, kafkatest.Metadata(t, cluster.ListenAddrs()), got)
	assert.Len(t, got.Topics, 2)
}

func TestMetadataOneTopicAndMissingTopic(t *testing.T) {
	cluster := kafkatest.AdminCluster(t)
	c := newClient(t, admin.Config{Brokers: cluster.ListenAddrs()})
	got, err := c.Metadata(testContext(t), []string{"u"})
	require.NoError(t, err)
	require.Len(t, got.Topics, 1)
	assertSameMetadata(t, kafkatest.Metadata(t, cluster.ListenAddrs(), "u"), got)

	got, err = c.Metadata(testContext(t), []string{"missing"})
	require.NoError(t, err, "a topic error is in the response, not the call's error")
	require.Len(t, got.Topics, 1)
	assert.ErrorIs(t, protocol.ErrorForCode(got.Topics[0].ErrorCode), protocol.ErrUnknownTopicOrPartition)
	// The request did not create it.
	again := kafkatest.Metadata(t, cluster.ListenAddrs(), "missing")
	assert.NotZero(t, again.Topics[0].ErrorCode)
}

func TestRequestToNode(t *testing.T) {
	cluster := kafkatest.AdminCluster(t)
	c := newClient(t, admin.Config{Brokers: cluster.ListenAddrs()})
	ctx := testContext(t)
	md, err := c.Metadata(ctx, nil)
	require.NoError(t, err)
	// Every broker answers a request sent to it.
	for _, b := range md.Brokers {
		resp, err := c.Request(ctx, b.NodeID, &protocol.MetadataRequest{Topics: []protocol.MetadataRequestTopic{}})
		require.NoError(t, err, "broker %d", b.NodeID)
		assert.Len(t, resp.(*protocol.MetadataResponse).Brokers, 3)
	}
	// CreateTopics to the controller creates the topic.
	resp, err := c.Request(ctx, md.ControllerID, &protocol.CreateTopicsRequest{
		Topics:    []protocol.CreateTopicsRequestTopic{{Name: "created", NumPartitions: 4, ReplicationFactor: -1}},
		TimeoutMs: 5000,
	})
	require.NoError(t, err)
	ct := resp.(*protocol.CreateTopicsResponse)
	require.Len(t, ct.Topics, 1)
	assert.Zero(t, ct.Topics[0].ErrorCode)
	oracle := kafkatest.Metadata(t, cluster.ListenAddrs(), "created")
	require.Zero(t, oracle.Topics[0].ErrorCode)
	assert.Len(t, oracle.Topics[0].Partitions, 4)

	_, err = c.Request(ctx, 42, &protocol.MetadataRequest{})
	assert.ErrorIs(t, err, admin.ErrUnknownNode)
}

func TestRequestBeforeMetadata(t *testing.T) {
	cluster := kafkatest.AdminCluster(t)
	c := newClient(t, admin.Config{Brokers: cluster.ListenAddrs()})
	// The node ids come from the cluster's metadata, fetched on the way.
	resp, err := c.Request(testContext(t), 1, &protocol.MetadataRequest{Topics: []protocol.MetadataRequestTopic{}})
	require.NoError(t, err)
	assert.NotEmpty(t, resp.(*protocol.MetadataResponse).Brokers)
}

func TestBrokerVersions(t *testing.T) {
	cluster := kafkatest.AdminCluster(t)
	c := newClient(t, admin.Config{Brokers: cluster.ListenAddrs()})
	ctx := testContext(t)
	got, err := c.BrokerVersions(ctx, 2)
	require.NoError(t, err)

	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
	require.NoError(t, err)
	defer cl.Close()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "oracle", "1"
	resp, err := req.RequestWith(ctx, cl.Broker(2))
	require.NoError(t, err)
	require.Zero(t, resp.ErrorCode)
	require.Len(t, got, len(resp.ApiKeys))
	for _, k := range resp.ApiKeys {
		assert.Equal(t, protocol.VersionRange{Min: k.MinVersion, Max: k.MaxVersion}, got[protocol.APIKey(k.ApiKey)], "api key %d", k.ApiKey)
	}
}

func TestUnreachableClusterBoundedByContext(t *testing.T) {
	addr := networktest.ClosedAddr(t)
	c := newClient(t, admin.Config{Brokers: []string{addr}})
	for _, tt := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"metadata", func(ctx context.Context) error { _, err := c.Metadata(ctx, nil); return err }},
		{"request", func(ctx context.Context) error { _, err := c.Request(ctx, 1, &protocol.MetadataRequest{}); return err }},
		{"versions", func(ctx context.Context) error { _, err := c.BrokerVersions(ctx, 1); return err }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- tt.call(ctx) }()
			select {
			case err := <-done:
				t.Log(err)
				require.ErrorIs(t, err, admin.ErrUnreachable)
				assert.Contains(t, err.Error(), addr, "the error names the broker tried")
				assert.Contains(t, err.Error(), "refused")
			case <-time.After(testDeadline):
				t.Fatal("the call did not end with its context")
			}
		})
	}
}

func TestCanceledContext(t *testing.T) {
	c := newClient(t, admin.Config{Brokers: []string{networktest.ClosedAddr(t)}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := c.Metadata(ctx, nil); done <- err }()
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(testDeadline):
		t.Fatal("a canceled call did not return")
	}
}

func TestSASLFailureReturnsAtOnce(t *testing.T) {
	cluster := kafkatest.AdminCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "u", "p"))
	good := newClient(t, admin.Config{Brokers: cluster.ListenAddrs(),
		SASL: network.PlainMechanism{Username: "u", Password: "p"}})
	_, err := good.Metadata(testContext(t), nil)
	require.NoError(t, err)

	bad := newClient(t, admin.Config{Brokers: cluster.ListenAddrs(),
		SASL: network.PlainMechanism{Username: "u", Password: "wrong"}})
	ctx := testContext(t)
	_, err = bad.Metadata(ctx, nil)
	t.Log(err)
	require.ErrorIs(t, err, network.ErrAuthentication)
	assert.NotErrorIs(t, err, admin.ErrUnreachable)
	assert.NoError(t, ctx.Err(), "a final failure does not wait for the context")
	assert.Contains(t, err.Error(), "bootstrap broker 127.0.0.1:", "the error names the broker")
}

func TestNotKafkaReturnsAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_, _ = conn.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
				buf := make([]byte, 512)
				_, _ = conn.Read(buf)
			}()
		}
	}()
	c := newClient(t, admin.Config{Brokers: []string{ln.Addr().String()}})
	ctx := testContext(t)
	_, err = c.Metadata(ctx, nil)
	t.Log(err)
	require.ErrorIs(t, err, network.ErrNotKafka)
	assert.NoError(t, ctx.Err())
	assert.Contains(t, err.Error(), ln.Addr().String())
}

func TestClosed(t *testing.T) {
	c, err := admin.New(admin.Config{Brokers: []string{"127.0.0.1:9092"}})
	require.NoError(t, err)
	c.Close()
	_, err = c.Metadata(context.Background(), nil)
	assert.ErrorIs(t, err, admin.ErrClosed)
	_, err = admin.New(admin.Config{})
	assert.Error(t, err)
}
