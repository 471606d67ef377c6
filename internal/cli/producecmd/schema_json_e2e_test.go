package producecmd_test

import (
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
)

const orderJSONSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "Order",
  "type": "object",
  "properties": {
    "id": {"type": "integer"},
    "customer": {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}}, "required": ["name"]},
    "tags": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["id"],
  "additionalProperties": false
}`

func TestSchemaJSONSchemaValidatesAndFrames(t *testing.T) {
	e := newSREnv(t)
	file := writeFile(t, "order.json", orderJSONSchema)
	input := `{"id":1,"customer":{"name":"ann"},"tags":["a"]}` + "\n" +
		`{"id":"2"}` + "\n" +
		`{"id":3,"customer":{"name":""}}` + "\n" +
		`{"id":4,"tags":["a",5]}` + "\n" +
		`{"id":5,"extra":true}` + "\n" +
		` {"id": 6} ` + "\n"
	run := e.produceSR(t, input, "-t", "t", "--schema-registry", e.url(), "--value-schema", file)
	assert.Equal(t, 1, run.Code)
	assert.Contains(t, run.Stderr, "-:2: t/-1: value: field .id: ")
	assert.Contains(t, run.Stderr, "-:3: t/-1: value: field .customer.name: ")
	assert.Contains(t, run.Stderr, "-:4: t/-1: value: field .tags[1]: ")
	assert.Contains(t, run.Stderr, "-:5: t/-1: value: ")
	got, ok := e.reg.GetSchema("t-value", 1)
	require.True(t, ok)
	assert.Equal(t, sr.TypeJSON, got.Type)

	recs := e.readBack(t, "t", 2)
	d, err := jsonschema.NewDeserializer(e.confluentClient(t), serde.ValueSerde, jsonschema.NewDeserializerConfig())
	require.NoError(t, err)
	for i, want := range []map[string]any{
		{"id": 1.0, "customer": map[string]any{"name": "ann"}, "tags": []any{"a"}},
		{"id": 6.0},
	} {
		assert.Equal(t, got.ID, schemaID(t, recs[i].Value))
		var v map[string]any
		require.NoError(t, d.DeserializeInto("t", recs[i].Value, &v))
		assert.Equal(t, want, v)
	}
	assert.Equal(t, `{"id": 6}`, string(recs[1].Value[5:]), "the JSON text itself, trimmed")
}

func TestSchemaJSONSchemaConsoleAndRecordStrategy(t *testing.T) {
	e := newSREnv(t)
	run := e.produceSR(t, `{"id":1}`+"\n", "-t", "t", "--line-reader", "io.confluent.kafka.formatter.JsonSchemaMessageReader",
		"--property", "schema.registry.url="+e.url(), "--property", "value.schema="+orderJSONSchema,
		"--property", "value.subject.name.strategy=io.confluent.kafka.serializers.subject.RecordNameStrategy")
	require.Equal(t, 0, run.Code, run.Stderr)
	got, ok := e.reg.GetSchema("Order", 1)
	require.True(t, ok, "the record name is the schema's title")
	assert.Equal(t, sr.TypeJSON, got.Type)
}
