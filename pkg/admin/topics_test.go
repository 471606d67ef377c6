package admin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestEnsureTopic checks the three outcomes: an existing topic as it is,
// a missing one refused without a spec, and a missing one created with
// the spec's partitions, each led, which kfake then lists.
func TestEnsureTopic(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	cl := newClient(t, admin.Config{Brokers: c.ListenAddrs()})
	ctx := testContext(t)

	topic, created, err := cl.EnsureTopic(ctx, "t", &admin.TopicSpec{Partitions: 1, ReplicationFactor: 1})
	require.NoError(t, err)
	assert.False(t, created)
	assert.Len(t, topic.Partitions, 6, "an existing topic is left as it is")

	_, _, err = cl.EnsureTopic(ctx, "missing", nil)
	require.ErrorIs(t, err, protocol.ErrUnknownTopicOrPartition)
	assert.ErrorContains(t, err, "topic missing does not exist")

	topic, created, err = cl.EnsureTopic(ctx, "new", &admin.TopicSpec{Partitions: 4, ReplicationFactor: -1})
	require.NoError(t, err)
	assert.True(t, created)
	require.Len(t, topic.Partitions, 4)
	for _, p := range topic.Partitions {
		assert.GreaterOrEqual(t, p.LeaderID, int32(0), "partition %d is led", p.PartitionIndex)
	}
	md := kafkatest.Metadata(t, c.ListenAddrs(), "new")
	require.Len(t, md.Topics, 1)
	assert.Len(t, md.Topics[0].Partitions, 4, "kfake has the topic")

	_, created, err = cl.EnsureTopic(ctx, "new", &admin.TopicSpec{Partitions: 4, ReplicationFactor: -1})
	require.NoError(t, err)
	assert.False(t, created, "created once")
}

// TestEnsureTopicConfigs: the spec's configs are set on the created
// topic, as kfake describes it.
func TestEnsureTopicConfigs(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	cl := newClient(t, admin.Config{Brokers: c.ListenAddrs()})
	compact := "compact"
	_, created, err := cl.EnsureTopic(testContext(t), "compacted", &admin.TopicSpec{Partitions: 1, ReplicationFactor: -1,
		Configs: []protocol.CreateTopicsRequestConfig{{Name: "cleanup.policy", Value: &compact}}})
	require.NoError(t, err)
	require.True(t, created)

	oracle, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer oracle.Close()
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, "compacted"
	res.ConfigNames = []string{"cleanup.policy"}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(testContext(t), oracle)
	require.NoError(t, err)
	require.Len(t, resp.Resources, 1)
	require.Len(t, resp.Resources[0].Configs, 1)
	assert.Equal(t, "compact", *resp.Resources[0].Configs[0].Value)
}
