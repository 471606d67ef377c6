package producecmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
)

const orderAvsc = `{"type":"record","name":"Order","namespace":"shop","fields":[
 {"name":"id","type":"long"},
 {"name":"customer","type":{"type":"record","name":"Customer","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"day","type":{"type":"int","logicalType":"date"}}]}`

// orderWant is what Confluent's deserializer reads back from the orders
// below.
func orderWant(id int64, note any) map[string]any {
	return map[string]any{"id": id, "customer": map[string]any{"id": int64(3), "name": "ann"}, "note": note}
}

func TestSchemaAvroValuesPlainAndStrictJSON(t *testing.T) {
	e := newSREnv(t)
	file := writeFile(t, "order.avsc", orderAvsc)
	input := strings.Join([]string{
		`{"id":1,"customer":{"id":3,"name":"ann"},"note":"plain","amount":"12.34","day":"2024-01-31"}`,
		`{"id":2,"customer":{"id":3,"name":"ann"},"note":{"string":"strict"},"amount":"\u0004\u00d2","day":19753}`,
		`{"id":3,"customer":{"id":3,"name":"ann"},"amount":1,"day":0}`,
		`null`,
	}, "\n") + "\n"
	run := e.produceSR(t, input, "-t", "t", "--schema-registry", e.url(), "--value-schema", file, "-o", "json")
	require.Equal(t, 0, run.Code, run.Stderr)

	got, ok := e.reg.GetSchema("t-value", 1)
	require.True(t, ok, "registered under the TopicNameStrategy subject")
	assert.Equal(t, sr.TypeAvro, got.Type)
	assert.Equal(t, 1, e.requests()["POST /subjects/t-value/versions"])
	assert.Contains(t, run.Stdout, fmt.Sprintf(`"key_schema_id":null,"value_schema_id":%d}`, got.ID))

	recs := e.readBack(t, "t", 4)
	d := e.avroDecoder(t, serde.ValueSerde)
	for i, note := range []any{"plain", "strict", nil} {
		assert.Equal(t, got.ID, schemaID(t, recs[i].Value))
		v, err := avroDecode(d, recs[i].Value)
		require.NoError(t, err)
		m := v.(map[string]any)
		for k, want := range orderWant(int64(i+1), note) {
			assert.Equal(t, want, m[k], "record %d field %s", i+1, k)
		}
	}
	v, err := avroDecode(d, recs[0].Value)
	require.NoError(t, err)
	assert.Equal(t, "12.34", v.(map[string]any)["amount"].(interface{ FloatString(int) string }).FloatString(2))
	v, err = avroDecode(d, recs[1].Value)
	require.NoError(t, err)
	assert.Equal(t, "12.34", v.(map[string]any)["amount"].(interface{ FloatString(int) string }).FloatString(2), "Avro JSON's bytes: 0x04d2 = 1234")
	assert.Nil(t, recs[3].Value, "JSON null stays a tombstone")
}

func TestSchemaAvroKeyAndValue(t *testing.T) {
	e := newSREnv(t)
	value := writeFile(t, "order.avsc", orderAvsc)
	key := writeFile(t, "key.avsc", `{"type":"record","name":"OrderKey","namespace":"shop","fields":[{"name":"id","type":"long"}]}`)
	input := `{"id":7}|{"id":7,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}` + "\n"
	run := e.produceSR(t, input, "-t", "t", "--schema-registry", e.url(), "--value-schema", value, "--key-schema", key, "-K", "|")
	require.Equal(t, 0, run.Code, run.Stderr)
	rec := e.readBack(t, "t", 1)[0]
	k, err := avroDecode(e.avroDecoder(t, serde.KeySerde), rec.Key)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": int64(7)}, k)
	ks, ok := e.reg.GetSchema("t-key", 1)
	require.True(t, ok)
	assert.Equal(t, ks.ID, schemaID(t, rec.Key))
	_, err = avroDecode(e.avroDecoder(t, serde.ValueSerde), rec.Value)
	require.NoError(t, err)
}

func TestSchemaSubjectStrategies(t *testing.T) {
	for _, tc := range []struct {
		args               []string
		valueSubj, keySubj string
	}{
		{[]string{"--subject-strategy", "topic"}, "t-value", "t-key"},
		{[]string{"--subject-strategy", "record"}, "shop.Order", "shop.OrderKey"},
		{[]string{"--subject-strategy", "topic-record"}, "t-shop.Order", "t-shop.OrderKey"},
		{[]string{"--subject-strategy", "record", "--key-subject-strategy", "topic"}, "shop.Order", "t-key"},
		{[]string{"-X", "value.subject.name.strategy=io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
			"-X", "key.subject.name.strategy=io.confluent.kafka.serializers.subject.TopicNameStrategy"}, "t-shop.Order", "t-key"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			e := newSREnv(t)
			value := writeFile(t, "order.avsc", orderAvsc)
			key := writeFile(t, "key.avsc", `{"type":"record","name":"OrderKey","namespace":"shop","fields":[{"name":"id","type":"long"}]}`)
			args := append([]string{"-t", "t", "--schema-registry", e.url(), "--value-schema", value, "--key-schema", key, "-K", "|"}, tc.args...)
			run := e.produceSR(t, `{"id":1}|{"id":1,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}`+"\n", args...)
			require.Equal(t, 0, run.Code, run.Stderr)
			vs, ok := e.reg.GetSchema(tc.valueSubj, 1)
			require.True(t, ok, "value subject %s", tc.valueSubj)
			ks, ok := e.reg.GetSchema(tc.keySubj, 1)
			require.True(t, ok, "key subject %s", tc.keySubj)
			rec := e.readBack(t, "t", 1)[0]
			assert.Equal(t, vs.ID, schemaID(t, rec.Value))
			assert.Equal(t, ks.ID, schemaID(t, rec.Key))
			d := e.avroDecoder(t, serde.ValueSerde)
			d.SubjectNameStrategy = func(string, serde.Type, schemaregistry.SchemaInfo) (string, error) { return tc.valueSubj, nil }
			_, err := avroDecode(d, rec.Value)
			require.NoError(t, err)
		})
	}
}

func TestSchemaOneRegistryRoundTripPerSubject(t *testing.T) {
	e := newSREnv(t)
	file := writeFile(t, "order.avsc", orderAvsc)
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, `{"id":%d,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}`+"\n", i)
	}
	run := e.produceSR(t, b.String(), "-t", "t", "--schema-registry", e.url(), "--value-schema", file, "-o", "none")
	require.Equal(t, 0, run.Code, run.Stderr)
	assert.Equal(t, map[string]int{"POST /subjects/t-value/versions": 1}, e.requests())
	assert.EqualValues(t, 2000, e.endOffset(t, "t"))
}

func TestSchemaByIDAndTopicLatest(t *testing.T) {
	e := newSREnv(t)
	id, _, err := e.reg.RegisterSchema("t-value", sr.Schema{Schema: orderAvsc, Type: sr.TypeAvro})
	require.NoError(t, err)
	kid, _, err := e.reg.RegisterSchema("t-key", sr.Schema{Schema: `"string"`, Type: sr.TypeAvro})
	require.NoError(t, err)
	rec := `"k"|{"id":1,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}` + "\n"
	for name, args := range map[string][]string{
		"native":        {"--schema-registry", e.url(), "--value-schema-id", fmt.Sprint(id), "--key-schema-id", fmt.Sprint(kid), "-K", "|"},
		"native topic":  {"--schema-registry", e.url(), "--value-schema-id", "topic", "--key-schema-id", "topic", "-K", "|"},
		"rpk":           {"-X", "registry.hosts=" + strings.TrimPrefix(e.url(), "http://"), "--schema-id", fmt.Sprint(id), "--schema-key-id", fmt.Sprint(kid), "-K", "|"},
		"rpk topic":     {"-X", "registry.hosts=" + strings.TrimPrefix(e.url(), "http://"), "--schema-id", "topic", "--schema-key-id", "topic", "-K", "|"},
		"console props": {"-X", "schema.registry.url=" + e.url(), "-X", "value.schema.id=" + fmt.Sprint(id), "-X", "key.schema.id=" + fmt.Sprint(kid), "-X", "parse.key=true", "-X", "key.separator=|"},
	} {
		t.Run(name, func(t *testing.T) {
			before := e.endOffset(t, "t")
			run := e.produceSR(t, rec, append([]string{"-t", "t"}, args...)...)
			require.Equal(t, 0, run.Code, run.Stderr)
			got := e.readBack(t, "t", int(before)+1)[before]
			assert.Equal(t, id, schemaID(t, got.Value))
			assert.Equal(t, kid, schemaID(t, got.Key))
			k, err := avroDecode(e.avroDecoder(t, serde.KeySerde), got.Key)
			require.NoError(t, err)
			assert.Equal(t, "k", k)
		})
	}
	assert.Zero(t, e.requests()["POST /subjects/t-value/versions"], "an id is never registered")
}

func TestSchemaConsoleDialect(t *testing.T) {
	e := newSREnv(t)
	valueSchema := `{"type":"record","name":"V","fields":[{"name":"f1","type":"string"}]}`
	run := e.produceSR(t, "\"k1\"\t{\"f1\":\"value1\"}\n",
		"--topic", "t", "--property", "schema.registry.url="+e.url(),
		"--line-reader", "io.confluent.kafka.formatter.AvroMessageReader",
		"--property", "value.schema="+valueSchema, "--property", "key.schema=\"string\"", "--property", "parse.key=true")
	require.Equal(t, 0, run.Code, run.Stderr)
	rec := e.readBack(t, "t", 1)[0]
	v, err := avroDecode(e.avroDecoder(t, serde.ValueSerde), rec.Value)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"f1": "value1"}, v)
	k, err := avroDecode(e.avroDecoder(t, serde.KeySerde), rec.Key)
	require.NoError(t, err)
	assert.Equal(t, "k1", k)

	file := writeFile(t, "v.avsc", valueSchema)
	run = e.produceSR(t, "{\"f1\":\"value2\"}\n", "--topic", "t", "--reader-property", "schema.registry.url="+e.url(),
		"--reader-property", "value.schema.file="+file, "--reader-property", "auto.register.schemas=false")
	require.Equal(t, 0, run.Code, run.Stderr)
	assert.EqualValues(t, 2, e.endOffset(t, "t"))
}

func TestSchemaUseLatestAndNoAutoRegister(t *testing.T) {
	e := newSREnv(t)
	file := writeFile(t, "order.avsc", orderAvsc)
	run := e.produceSR(t, `{"id":1,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}`+"\n",
		"-t", "t", "--schema-registry", e.url(), "--value-schema", file, "--auto-register=false")
	assert.Equal(t, 1, run.Code)
	assert.Contains(t, run.Stderr, `look up the schema under subject "t-value": HTTP 404, error code 40401`)
	assert.Contains(t, run.Stderr, e.url())
	assert.Zero(t, e.endOffset(t, "t"))

	wider := strings.Replace(orderAvsc, `{"name":"id","type":"long"},`, `{"name":"id","type":"long"},{"name":"extra","type":"int","default":5},`, 1)
	id, _, err := e.reg.RegisterSchema("t-value", sr.Schema{Schema: wider, Type: sr.TypeAvro})
	require.NoError(t, err)
	run = e.produceSR(t, `{"id":1,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}`+"\n",
		"-t", "t", "--schema-registry", e.url(), "--value-schema", file, "--use-latest-version")
	require.Equal(t, 0, run.Code, run.Stderr)
	rec := e.readBack(t, "t", 1)[0]
	assert.Equal(t, id, schemaID(t, rec.Value))
	v, err := avroDecode(e.avroDecoder(t, serde.ValueSerde), rec.Value)
	require.NoError(t, err)
	assert.Equal(t, 5, v.(map[string]any)["extra"], "encoded with the latest schema, its default filled in")
}

func TestSchemaDryRunRegistersNothing(t *testing.T) {
	e := newSREnv(t)
	file := writeFile(t, "order.avsc", orderAvsc)
	run := e.produceSR(t, `{"id":1,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}`+"\n"+`{"id":"x"}`+"\n",
		"-t", "t", "--schema-registry", e.url(), "--value-schema", file, "--dry-run", "--partitions", "1")
	assert.Equal(t, 1, run.Code, "the second record does not fit")
	assert.Contains(t, run.Stderr, `would register under subject "t-value"`)
	assert.Contains(t, run.Stderr, `-:2: t/-1: value: field .id: expected long, got string "x"`)
	assert.False(t, e.reg.SubjectExists("t-value"))
	for call := range e.requests() {
		assert.False(t, strings.HasSuffix(call, "/versions"), "no registration: %s", call)
	}
}

func TestSchemaRecordErrorsGoOnTheirOwn(t *testing.T) {
	e := newSREnv(t)
	file := writeFile(t, "order.avsc", orderAvsc)
	data := writeFile(t, "orders.json", strings.Join([]string{
		`{"id":1,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}`,
		`{"id":2,"customer":{"id":"x","name":"ann"},"amount":0,"day":0}`,
		`{"id":3,"customer":{"id":3,"name":"ann"},"amount":0,"day":0,"nope":1}`,
		`{"id":4,"customer":{"id":3,"name":"ann"},"amount":0,"day":0`,
		`{"id":5,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}`,
	}, "\n")+"\n")
	run := e.produceSR(t, "", "-t", "t", "--schema-registry", e.url(), "--value-schema", file, data)
	assert.Equal(t, 1, run.Code)
	assert.Contains(t, run.Stderr, `orders.json:2: t/-1: value: field .customer.id: expected long, got string "x"`)
	assert.Contains(t, run.Stderr, `orders.json:3: t/-1: value: field .nope: not in record shop.Order`)
	assert.Contains(t, run.Stderr, `orders.json:4: t/-1: value: invalid JSON`)
	assert.EqualValues(t, 2, e.endOffset(t, "t"), "records 1 and 5 were produced")
}
