package producecmd_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// srEnv is a kfake cluster (one broker, a one-partition topic "t") and an
// in-memory Confluent Schema Registry, both in-process, with the
// registry's requests counted.
type srEnv struct {
	cluster *kfake.Cluster
	reg     *srfake.Registry
	mu      sync.Mutex
	calls   map[string]int // "METHOD /path" -> count; guarded by mu
}

// newSREnv starts a cluster and a registry for one test.
func newSREnv(t *testing.T, opts ...srfake.Option) *srEnv {
	t.Helper()
	c := kafkatest.NewCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1))
	e := &srEnv{cluster: c, reg: srfake.New(opts...), calls: map[string]int{}}
	t.Cleanup(e.reg.Close)
	e.reg.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.calls[r.Method+" "+r.URL.Path]++
		return false
	})
	return e
}

// brokers is the -b value.
func (e *srEnv) brokers() string { return kafkatest.Brokers(e.cluster) }

// url is the registry's URL.
func (e *srEnv) url() string { return e.reg.URL() }

// requests returns the registry requests counted so far.
func (e *srEnv) requests() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int, len(e.calls))
	for k, v := range e.calls {
		out[k] = v
	}
	return out
}

// failWith makes the registry answer every request whose path contains
// part with an HTTP status and a registry error.
func (e *srEnv) failWith(part string, status, code int, msg string) {
	e.reg.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, part) {
			return false
		}
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(sr.ResponseError{ErrorCode: code, Message: msg})
		return true
	})
}

// produceSR runs kproduce in-process against the environment's cluster
// (-b is added).
func (e *srEnv) produceSR(t *testing.T, stdin string, args ...string) kafkatest.Result {
	t.Helper()
	return runKproduce(t, strings.NewReader(stdin), append([]string{"-b", e.brokers()}, args...)...)
}

// readBack consumes n records of topic (one partition) with kgo.
func (e *srEnv) readBack(t *testing.T, topic string, n int) []*kgo.Record {
	t.Helper()
	return kafkatest.ConsumeAll(t, e.cluster.ListenAddrs(), topic, n)
}

// endOffset is the end offset of partition 0 of topic (0 when it does not
// exist): how many records were produced.
func (e *srEnv) endOffset(t *testing.T, topic string) int64 {
	t.Helper()
	return kafkatest.PartitionEnd(t, e.cluster.ListenAddrs(), topic, 0)
}

// confluentClient is Confluent's own Schema Registry client on the
// environment's registry.
func (e *srEnv) confluentClient(t *testing.T) schemaregistry.Client {
	t.Helper()
	c, err := schemaregistry.NewClient(schemaregistry.NewConfig(e.url()))
	require.NoError(t, err)
	return c
}

// avroDecoder is Confluent's Avro deserializer for keys or values.
func (e *srEnv) avroDecoder(t *testing.T, st serde.Type) *avrov2.Deserializer {
	t.Helper()
	d, err := avrov2.NewDeserializer(e.confluentClient(t), st, avrov2.NewDeserializerConfig())
	require.NoError(t, err)
	return d
}

// schemaID reads the Confluent header of a framed value: magic byte 0 and
// the id.
func schemaID(t *testing.T, b []byte) int {
	t.Helper()
	var h sr.ConfluentHeader
	id, _, err := h.DecodeID(b)
	require.NoError(t, err)
	return id
}

// avroDecode decodes a framed Avro value with Confluent's deserializer,
// into generic values.
func avroDecode(d *avrov2.Deserializer, payload []byte) (any, error) {
	var v any
	err := d.DeserializeInto("t", payload, &v)
	return v, err
}
