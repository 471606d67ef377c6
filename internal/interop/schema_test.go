//go:build cgo

package interop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// TestSchemaAvroReadByLibrdkafka produces Avro records framed for a Schema
// Registry (srfake) to librdkafka's mock cluster, keyed, and reads them
// back with librdkafka's consumer and Confluent's Avro deserializer.
func TestSchemaAvroReadByLibrdkafka(t *testing.T) {
	mc := mockCluster(t, 1, "orders")
	reg := srfake.New()
	t.Cleanup(reg.Close)
	dir := t.TempDir()
	value := filepath.Join(dir, "order.avsc")
	require.NoError(t, os.WriteFile(value, []byte(`{"type":"record","name":"Order","namespace":"shop","fields":[
	  {"name":"id","type":"long"},{"name":"note","type":["null","string"],"default":null}]}`), 0o644))
	var in strings.Builder
	for i := range 50 {
		in.WriteString(`"k` + string(rune('a'+i%5)) + `"|{"id":` + string(rune('0'+i%10)) + `,"note":"n"}` + "\n")
	}
	res := runKproduce(t, time.Minute, in.String(), "-b", mc.BootstrapServers(), "-t", "orders", "-K", "|", "-o", "none",
		"--schema-registry", reg.URL(), "--value-schema", value, "--key-schema-text", `"string"`)
	require.Equal(t, 0, res.code, res.stderr)

	client, err := schemaregistry.NewClient(schemaregistry.NewConfig(reg.URL()))
	require.NoError(t, err)
	values, err := avrov2.NewDeserializer(client, serde.ValueSerde, avrov2.NewDeserializerConfig())
	require.NoError(t, err)
	keys, err := avrov2.NewDeserializer(client, serde.KeySerde, avrov2.NewDeserializerConfig())
	require.NoError(t, err)
	partitionOf := map[string]int32{}
	for _, rec := range consumeRdkafka(t, mc, "orders", 50) {
		var k, v any
		require.NoError(t, keys.DeserializeInto("orders", []byte(rec.key), &k))
		require.NoError(t, values.DeserializeInto("orders", []byte(rec.value), &v))
		assert.Equal(t, "n", v.(map[string]any)["note"])
		key := k.(string)
		if p, seen := partitionOf[key]; seen {
			assert.Equal(t, p, rec.partition, "a key stays on its partition")
		}
		partitionOf[key] = rec.partition
	}
	assert.Len(t, partitionOf, 5)
}
