package producecmd_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// metadataAsks records what each Metadata request asked of auto-creation.
type metadataAsks struct {
	mu   sync.Mutex
	asks []bool
}

// observeMetadata records the AllowAutoTopicCreation of every Metadata
// request c answers.
func observeMetadata(c *kfake.Cluster) *metadataAsks {
	m := &metadataAsks{}
	c.ControlKey(int16(kmsg.Metadata), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		m.mu.Lock()
		m.asks = append(m.asks, req.(*kmsg.MetadataRequest).AllowAutoTopicCreation)
		m.mu.Unlock()
		return nil, nil, false
	})
	return m
}

// all returns the asks so far.
func (m *metadataAsks) all() []bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]bool(nil), m.asks...)
}

// TestE2EAllowAutoTopicCreation: by default Metadata requests ask the
// brokers to create a missing topic, as Java's producer does; rpk's
// --allow-auto-topic-creation=false, -X allow.auto.create.topics=false
// and KPRODUCE_ALLOW_AUTO_TOPIC_CREATION=false ask them not to: the topic
// is not created and its records fail, naming UNKNOWN_TOPIC_OR_PARTITION.
func TestE2EAllowAutoTopicCreation(t *testing.T) { // not parallel: it sets the environment
	for i, tc := range []struct {
		args []string
		env  string
		want bool
	}{
		{args: nil, want: true},
		{args: []string{"--allow-auto-topic-creation"}, want: true},
		{args: []string{"--allow-auto-topic-creation=false"}},
		{args: []string{"-X", "allow.auto.create.topics=false"}},
		{env: "false"},
	} {
		c := kafkatest.ProducerCluster(t)
		asks := observeMetadata(c)
		if tc.env != "" {
			t.Setenv("KPRODUCE_ALLOW_AUTO_TOPIC_CREATION", tc.env)
		}
		topic := "new-" + string(rune('a'+i))
		res := produceTo(t, c, strings.NewReader("x\n"), append([]string{"-t", topic, "--delivery-timeout", "2s"}, tc.args...)...)
		require.NotEmpty(t, asks.all(), "%v", tc.args)
		for _, ask := range asks.all() {
			assert.Equal(t, tc.want, ask, "%v %s: AllowAutoTopicCreation", tc.args, tc.env)
		}
		if tc.want {
			require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
			kafkatest.ConsumeExactly(t, c, topic, 1)
			continue
		}
		assert.Equal(t, cmdutil.ExitFailed, res.Code, "%v %s", tc.args, tc.env)
		assert.Contains(t, res.Stderr, "UNKNOWN_TOPIC_OR_PARTITION")
		assert.Nil(t, c.TopicInfo(topic), "%v %s: not created", tc.args, tc.env)
	}
}
