package input

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestJSONReadsKcatOutput stores records in kfake with kgo, dumps the topic
// with the real kcat -C -J and checks that the json reader gives back
// exactly the records kgo reads from the cluster. It is skipped when kcat
// is not installed.
func TestJSONReadsKcatOutput(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cluster := kafkatest.NewCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(3, "src"))
	addr := cluster.ListenAddrs()[0]

	sent := produceFixtures(ctx, t, addr)
	stored := kafkatest.ConsumeAll(t, []string{addr}, "src", len(sent))

	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, kcat, "-C", "-b", addr, "-t", "src", "-J", "-e", "-q")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), errOut.String())

	opts := testConfig(t, "-f", "json")
	recs := readAll(t, newJSONReader(opts, "kcat", &out, inputBufferSize))
	require.Len(t, recs, len(stored))
	byKey := func(topic string, partition int32, offset int) *kgo.Record {
		n := 0
		for _, r := range stored {
			if r.Topic == topic && r.Partition == partition {
				if n == offset {
					return r
				}
				n++
			}
		}
		return nil
	}
	seen := map[int32]int{}
	for _, got := range recs {
		require.NoError(t, got.Err)
		want := byKey(got.Topic, got.Partition, seen[got.Partition])
		seen[got.Partition]++
		require.NotNil(t, want, "record %d", got.Number)
		assert.Equal(t, want.Key, got.Key, "record %d key", got.Number)
		assert.Equal(t, want.Value, got.Value, "record %d value", got.Number)
		assert.Equal(t, want.Timestamp.UnixMilli(), got.Timestamp, "record %d timestamp", got.Number)
		require.Len(t, got.Headers, len(want.Headers), "record %d headers", got.Number)
		for i, hd := range want.Headers {
			assert.Equal(t, hd.Key, got.Headers[i].Key)
			assert.Equal(t, string(hd.Value), string(got.Headers[i].Value))
		}
	}
}

// produceFixtures stores records with awkward bytes, null keys and values,
// and repeated headers in topic src with kgo.
func produceFixtures(ctx context.Context, t *testing.T, addr string) []*kgo.Record {
	t.Helper()
	producer, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	t.Cleanup(producer.Close)
	ts := time.UnixMilli(1764500000123)
	sent := []*kgo.Record{
		{Topic: "src", Partition: 0, Key: []byte("k1"), Value: []byte("v1"), Timestamp: ts},
		{Topic: "src", Partition: 1, Value: []byte("no key"), Timestamp: ts.Add(time.Second)},
		{Topic: "src", Partition: 2, Key: []byte("bin\x00\xff"), Value: []byte("\x00\x01\xfe\"\\\n\t{}"), Timestamp: ts,
			Headers: []kgo.RecordHeader{{Key: "h1", Value: []byte("a")}, {Key: "h1", Value: []byte("b")}, {Key: "h2", Value: []byte("é")}}},
		{Topic: "src", Partition: 2, Key: []byte("tomb"), Timestamp: ts},
		{Topic: "src", Partition: 0, Key: []byte(""), Value: []byte(""), Timestamp: ts},
		{Topic: "src", Partition: 1, Value: []byte(`{"json": ["as", "text"]}`), Timestamp: ts},
	}
	require.NoError(t, producer.ProduceSync(ctx, sent...).FirstErr())
	return sent
}
