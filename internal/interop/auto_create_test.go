//go:build cgo

package interop

import (
	"slices"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mockTopics lists the topics of the mock cluster, asking for all of them
// (which creates none).
func mockTopics(t *testing.T, mc *kafka.MockCluster) []string {
	t.Helper()
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": mc.BootstrapServers(), "log_level": 0})
	require.NoError(t, err)
	defer admin.Close()
	md, err := admin.GetMetadata(nil, true, 10000)
	require.NoError(t, err)
	var names []string
	for name := range md.Topics {
		names = append(names, name)
	}
	return names
}

// TestRdkafkaMockAutoTopicCreation: librdkafka's mock cluster creates a
// missing topic when kproduce's Metadata asks it to (the default), and not
// when -X allow.auto.create.topics=false or --allow-auto-topic-creation=false
// asks it not to: the records then fail.
func TestRdkafkaMockAutoTopicCreation(t *testing.T) {
	t.Parallel()
	mc := mockCluster(t, 1)
	b := mc.BootstrapServers()
	// -p 0: the mock gives a created topic its own default partition count.
	res := runKproduce(t, time.Minute, "x\n", "-b", b, "-t", "created", "-p", "0", "-o", "none")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Len(t, consumeRdkafka(t, mc, "created", 1), 1)

	for _, args := range [][]string{{"-t", "kept-out", "-X", "allow.auto.create.topics=false"}, {"-t", "kept-out-too", "--allow-auto-topic-creation=false"}} {
		res = runKproduce(t, time.Minute, "x\n", append([]string{"-b", b, "--delivery-timeout", "2s", "--log-level", "error"}, args...)...)
		assert.Equal(t, 1, res.code, "%v: %s", args, res.stderr)
		assert.Contains(t, res.stderr, "UNKNOWN_TOPIC_OR_PARTITION", "%v", args)
	}
	topics := mockTopics(t, mc)
	assert.True(t, slices.Contains(topics, "created"), "%v", topics)
	assert.False(t, slices.Contains(topics, "kept-out"), "%v", topics)
	assert.False(t, slices.Contains(topics, "kept-out-too"), "%v", topics)
}
