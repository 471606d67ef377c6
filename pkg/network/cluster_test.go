package network

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

func strp(s string) *string { return &s }

func TestClusterFromResponse(t *testing.T) {
	resp := &protocol.MetadataResponse{
		ClusterID:    strp("abc"),
		ControllerID: 2,
		Brokers: []protocol.MetadataResponseBroker{
			{NodeID: 3, Host: "c", Port: 3}, {NodeID: 1, Host: "a", Port: 1, Rack: strp("r1")}, {NodeID: 2, Host: "b", Port: 2},
		},
		Topics: []protocol.MetadataResponseTopic{
			{Name: strp("t"), Partitions: []protocol.MetadataResponsePartition{
				{PartitionIndex: 1, LeaderID: -1, LeaderEpoch: 4, ErrorCode: protocol.ErrLeaderNotAvailable.Code},
				{PartitionIndex: 0, LeaderID: 2, LeaderEpoch: 7, ReplicaNodes: []int32{2, 3}, IsrNodes: []int32{2}, OfflineReplicas: []int32{3}},
			}},
			{Name: strp("missing"), ErrorCode: protocol.ErrUnknownTopicOrPartition.Code},
			{Name: strp("__consumer_offsets"), IsInternal: true},
			{Name: nil}, // known by id only: dropped
		},
	}
	c := newClusterFromResponse(resp, nil)
	assert.Equal(t, "abc", c.ClusterID)
	assert.Equal(t, int32(2), c.ControllerID)
	assert.False(t, c.IsBootstrap())
	require.Len(t, c.Nodes(), 3)
	for i, n := range c.Nodes() {
		assert.Equal(t, int32(i+1), n.ID, "sorted by id")
	}
	n, ok := c.Node(1)
	require.True(t, ok)
	assert.Equal(t, "r1", *n.Rack)
	_, ok = c.Node(9)
	assert.False(t, ok)

	assert.Equal(t, []string{"__consumer_offsets", "missing", "t"}, c.Topics())
	assert.Equal(t, 2, c.PartitionCount("t"))
	assert.Equal(t, 0, c.PartitionCount("missing"))
	assert.Equal(t, 0, c.PartitionCount("nope"))

	leader, ok := c.LeaderFor("t", 0)
	assert.True(t, ok)
	assert.Equal(t, int32(2), leader)
	_, ok = c.LeaderFor("t", 1)
	assert.False(t, ok, "leader -1")
	_, ok = c.LeaderFor("t", 2)
	assert.False(t, ok, "unknown partition")
	_, ok = c.LeaderFor("nope", 0)
	assert.False(t, ok)

	tm, ok := c.Topic("t")
	require.True(t, ok)
	assert.NoError(t, tm.Err)
	require.Len(t, tm.Partitions, 2)
	assert.Equal(t, int32(0), tm.Partitions[0].ID, "sorted by partition")
	assert.Equal(t, []int32{2, 3}, tm.Partitions[0].Replicas)
	assert.Equal(t, []int32{2}, tm.Partitions[0].ISR)
	assert.Equal(t, []int32{3}, tm.Partitions[0].Offline)
	assert.ErrorIs(t, tm.Partitions[1].Err, protocol.ErrLeaderNotAvailable)
	missing, _ := c.Topic("missing")
	assert.ErrorIs(t, missing.Err, protocol.ErrUnknownTopicOrPartition)
	internal, _ := c.Topic("__consumer_offsets")
	assert.True(t, internal.IsInternal)
	p, ok := c.Partition("t", 1)
	require.True(t, ok)
	assert.Equal(t, int32(4), p.LeaderEpoch)
	_, ok = c.Partition("t", 5)
	assert.False(t, ok)
	_, ok = c.Partition("x", 0)
	assert.False(t, ok)
}

func TestClusterKeepsNewerLeaderEpoch(t *testing.T) {
	resp := func(leader, epoch int32) *protocol.MetadataResponse {
		return &protocol.MetadataResponse{
			Brokers: []protocol.MetadataResponseBroker{{NodeID: 1}, {NodeID: 2}},
			Topics: []protocol.MetadataResponseTopic{{Name: strp("t"), Partitions: []protocol.MetadataResponsePartition{
				{PartitionIndex: 0, LeaderID: leader, LeaderEpoch: epoch},
			}}},
		}
	}
	c1 := newClusterFromResponse(resp(1, 5), nil)
	stale := newClusterFromResponse(resp(2, 4), c1)
	leader, _ := stale.LeaderFor("t", 0)
	assert.Equal(t, int32(1), leader, "a lagging broker cannot move the leader back")
	newer := newClusterFromResponse(resp(2, 6), c1)
	leader, _ = newer.LeaderFor("t", 0)
	assert.Equal(t, int32(2), leader)
	noEpoch := newClusterFromResponse(resp(2, -1), c1)
	leader, _ = noEpoch.LeaderFor("t", 0)
	assert.Equal(t, int32(2), leader, "no epoch: trust the response")
}

func TestClusterSparsePartitions(t *testing.T) {
	resp := &protocol.MetadataResponse{Brokers: []protocol.MetadataResponseBroker{{NodeID: 1}},
		Topics: []protocol.MetadataResponseTopic{{Name: strp("t"), Partitions: []protocol.MetadataResponsePartition{
			{PartitionIndex: 5, LeaderID: 1}, {PartitionIndex: 2, LeaderID: 1}, {PartitionIndex: 2, LeaderID: 1},
		}}}}
	c := newClusterFromResponse(resp, nil)
	assert.Equal(t, 2, c.PartitionCount("t"), "duplicates dropped")
	_, ok := c.LeaderFor("t", 5)
	assert.True(t, ok)
	_, ok = c.LeaderFor("t", 0)
	assert.False(t, ok)
}

func TestBootstrapCluster(t *testing.T) {
	c := newBootstrapCluster([]Node{{ID: -1, Host: "a", Port: 1}, {ID: -2, Host: "b", Port: 2}})
	assert.True(t, c.IsBootstrap())
	assert.Equal(t, int32(-1), c.ControllerID)
	assert.Len(t, c.Nodes(), 2)
	assert.Empty(t, c.Topics())
	assert.Contains(t, c.String(), "2 brokers")
}

// TestLeaderNotInBrokerListIsNoLeader: a partition whose leader is not
// among the metadata's brokers has no usable leader.
func TestLeaderNotInBrokerListIsNoLeader(t *testing.T) {
	c := newClusterFromResponse(&protocol.MetadataResponse{
		Brokers: []protocol.MetadataResponseBroker{{NodeID: 1, Host: "a", Port: 1}},
		Topics: []protocol.MetadataResponseTopic{{Name: strp("t"), Partitions: []protocol.MetadataResponsePartition{
			{PartitionIndex: 0, LeaderID: 1}, {PartitionIndex: 1, LeaderID: 7},
		}}},
	}, nil)
	leader, ok := c.LeaderFor("t", 0)
	assert.True(t, ok)
	assert.Equal(t, int32(1), leader)
	_, ok = c.LeaderFor("t", 1)
	assert.False(t, ok, "broker 7 is not listed")
	p, ok := c.Partition("t", 1)
	require.True(t, ok)
	assert.Equal(t, int32(7), p.Leader, "the partition still names it")
}
