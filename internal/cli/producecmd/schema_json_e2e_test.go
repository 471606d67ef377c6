package producecmd_test

import (
	"strings"
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

// TestSchemaJSONSchemaRefCycleRefusedAtLoad: a JSON Schema whose $refs (or
// allOf, anyOf, not, if...) come back to where they started without going
// into a part of the value could never finish validating anything: it is
// a usage error naming the file and the cycle, before anything is
// registered or produced.
func TestSchemaJSONSchemaRefCycleRefusedAtLoad(t *testing.T) {
	e := newSREnv(t)
	for _, tc := range []struct {
		name, schema, cycle string
	}{
		{"self", `{"$ref":"#"}`, "# -> #"},
		{"two definitions", `{"$ref":"#/definitions/a","definitions":{"a":{"$ref":"#/definitions/b"},"b":{"$ref":"#/definitions/a"}}}`,
			"#/definitions/a -> #/definitions/b -> #/definitions/a"},
		{"through allOf", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"p":{"$ref":"#/$defs/a"}},` +
			`"$defs":{"a":{"allOf":[{"type":"string"},{"$ref":"#/$defs/a"}]}}}`, "#/$defs/a -> #/$defs/a/allOf/1 -> #/$defs/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, "cycle.json", tc.schema)
			for _, given := range [][]string{{"--value-schema", file}, {"--value-schema-text", tc.schema}} {
				run := e.produceSR(t, `{"p":"x"}`+"\n"+`"x"`+"\n", append([]string{"-t", "t", "--schema-registry", e.url(), "--schema-format", "json-schema"}, given...)...)
				assert.Equal(t, 2, run.Code, "%v: %s", given[0], run.Stderr)
				assert.Contains(t, run.Stderr, "cycle")
				assert.Contains(t, run.Stderr, tc.cycle)
				if given[0] == "--value-schema" {
					assert.Contains(t, run.Stderr, file)
				}
				assert.Equal(t, 1, strings.Count(run.Stderr, "error:"), "one error: %s", run.Stderr)
			}
		})
	}
	run := e.produceSR(t, "1\n", "-t", "t", "--schema-registry", e.url(), "--value-schema-text", `{"$ref":"#"}`)
	assert.Equal(t, 2, run.Code, "the content says JSON Schema: %s", run.Stderr)
	assert.Contains(t, run.Stderr, "JSON Schema schema: reference cycle # -> #")
	assert.Zero(t, e.endOffset(t, "t"), "nothing produced")
	assert.Zero(t, e.requests()["POST /subjects/t-value/versions"], "nothing registered")
}

// TestSchemaJSONSchemaRecursiveTree: a schema that refers to itself below
// a property (a tree of nodes) is well-founded: it loads, and checks
// nested values at every depth.
func TestSchemaJSONSchemaRecursiveTree(t *testing.T) {
	e := newSREnv(t)
	tree := `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name"]}`
	file := writeFile(t, "tree.json", tree)
	input := `{"name":"root","children":[{"name":"a","children":[{"name":"a1"}]},{"name":"b","children":[]}]}` + "\n" +
		`{"name":"root","children":[{"name":"a","children":[{"name":7}]}]}` + "\n" +
		`{"name":"leaf"}` + "\n"
	run := e.produceSR(t, input, "-t", "t", "--schema-registry", e.url(), "--schema-format", "json-schema", "--value-schema", file)
	assert.Equal(t, 1, run.Code, run.Stderr)
	assert.Contains(t, run.Stderr, "-:2: t/-1: value: field .children[0].children[0].name: ")
	recs := e.readBack(t, "t", 2)
	assert.Equal(t, `{"name":"leaf"}`, string(recs[1].Value[5:]))
	got, ok := e.reg.GetSchema("t-value", 1)
	require.True(t, ok)
	assert.Equal(t, sr.TypeJSON, got.Type)
	assert.Equal(t, got.ID, schemaID(t, recs[0].Value))
}
