package producecmd_test

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestSchemaRegistryMutualTLS: a registry that requires a client
// certificate is reached with kproduce's flags and with rpk's
// registry.tls.* names (insecure_skip_verify too), and refused without
// the certificate, before anything is produced.
func TestSchemaRegistryMutualTLS(t *testing.T) {
	e := newSREnv(t)
	certs := networktest.NewCertFiles(t)
	srv := httptest.NewUnstartedServer(e.reg.Handler())
	srv.TLS = certs.ServerTLS(true)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	t.Cleanup(srv.Close)
	hostPort := strings.TrimPrefix(srv.URL, "https://")
	value := writeFile(t, "r.avsc", stringAvsc)

	run := e.produceSR(t, `{"s":"x"}`+"\n", "-t", "t", "--value-schema", value, "--schema-registry", srv.URL, "--schema-registry-ca", certs.CA)
	assert.Equal(t, 1, run.Code, "no client certificate: refused")
	assert.Contains(t, run.Stderr, "error: schema registry "+srv.URL)
	assert.Zero(t, e.endOffset(t, "t"))

	for name, args := range map[string][]string{
		"native": {"--schema-registry", srv.URL, "--schema-registry-ca", certs.CA,
			"--schema-registry-cert", certs.ClientCert, "--schema-registry-key", certs.ClientKey},
		"rpk": {"-X", "registry.hosts=" + hostPort, "-X", "registry.tls.enabled=true", "-X", "registry.tls.ca=" + certs.CA,
			"-X", "registry.tls.cert=" + certs.ClientCert, "-X", "registry.tls.key=" + certs.ClientKey},
		"rpk skip verify": {"-X", "registry.hosts=" + hostPort, "-X", "registry.tls.insecure_skip_verify=true",
			"-X", "registry.tls.cert=" + certs.ClientCert, "-X", "registry.tls.key=" + certs.ClientKey},
	} {
		t.Run(name, func(t *testing.T) {
			run := e.produceSR(t, `{"s":"x"}`+"\n", append([]string{"-t", "t", "--value-schema", value}, args...)...)
			require.Equal(t, 0, run.Code, run.Stderr)
		})
	}
	assert.EqualValues(t, 3, e.endOffset(t, "t"))
}

// TestSchemaRegistryURLsInOrder: of several registry URLs (kproduce's
// comma list, the console producer's, rpk's hosts) one that cannot be
// reached is passed over for the next.
func TestSchemaRegistryURLsInOrder(t *testing.T) {
	e := newSREnv(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := closed.Addr().String()
	require.NoError(t, closed.Close())
	value := writeFile(t, "r.avsc", stringAvsc)
	live := strings.TrimPrefix(e.url(), "http://")
	for _, args := range [][]string{
		{"--schema-registry", "http://" + dead + "," + e.url()},
		{"--schema-registry", "http://" + dead, "--schema-registry", e.url()},
		{"-X", "schema.registry.url=http://" + dead + "," + e.url()},
		{"-X", "registry.hosts=" + dead + "," + live},
	} {
		run := e.produceSR(t, `{"s":"x"}`+"\n", append([]string{"-t", "t", "--value-schema", value}, args...)...)
		require.Equal(t, 0, run.Code, "%v: %s", args, run.Stderr)
	}
	assert.EqualValues(t, 4, e.endOffset(t, "t"))
}

// TestSchemaFormatChosen: the console producers' line reader classes (with
// and without their package) choose the format of a schema that could be
// either, as --schema-format does; without them the content decides, and
// beats the file's extension.
func TestSchemaFormatChosen(t *testing.T) {
	const either = `{"type":"string"}` // an Avro string, or a JSON Schema of strings
	avroInJSON := writeFile(t, "order.json", stringAvsc)
	jsonSchemaInAvsc := writeFile(t, "order.avsc", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`)
	protoInTxt := writeFile(t, "order.txt", "syntax = \"proto3\";\nmessage M { string s = 1; }\n")
	refOnly := writeFile(t, "ref.avsc", `{"$ref":"#/x","x":{"type":"string"}}`)
	defsOnly := writeFile(t, "defs.avsc", `{"$defs":{"s":{"type":"string"}}}`)
	avroProperties := writeFile(t, "props.json", `{"type":"record","name":"R","fields":[{"name":"properties","type":"string"}]}`)
	for _, tc := range []struct {
		args  []string
		input string
		want  sr.SchemaType
	}{
		{[]string{"--line-reader", "io.confluent.kafka.formatter.json.JsonSchemaMessageReader", "--property", "value.schema=" + either}, `"x"`, sr.TypeJSON},
		{[]string{"--line-reader", "io.confluent.kafka.formatter.JsonSchemaMessageReader", "--property", "value.schema=" + either}, `"x"`, sr.TypeJSON},
		{[]string{"--reader", "io.confluent.kafka.formatter.json.JsonSchemaMessageReader", "--property", "value.schema=" + either}, `"x"`, sr.TypeJSON},
		{[]string{"--line-reader", "io.confluent.kafka.formatter.AvroMessageReader", "--property", "value.schema=" + either}, `"x"`, sr.TypeAvro},
		{[]string{"--schema-format", "json-schema", "--value-schema-text", either}, `"x"`, sr.TypeJSON},
		{[]string{"--value-schema-text", either}, `"x"`, sr.TypeAvro},
		{[]string{"--line-reader", "io.confluent.kafka.formatter.protobuf.ProtobufMessageReader", "--property", `value.schema=syntax = "proto3"; message M { string s = 1; }`},
			`{"s":"x"}`, sr.TypeProtobuf},
		{[]string{"--value-schema", avroInJSON}, `{"s":"x"}`, sr.TypeAvro},
		{[]string{"--value-schema", jsonSchemaInAvsc}, `{"s":"x"}`, sr.TypeJSON},
		{[]string{"--value-schema", protoInTxt}, `{"s":"x"}`, sr.TypeProtobuf},
		{[]string{"--value-schema", refOnly}, `"x"`, sr.TypeJSON},
		{[]string{"--value-schema", defsOnly}, `{"s":"x"}`, sr.TypeJSON},
		{[]string{"--value-schema", avroProperties}, `{"properties":"x"}`, sr.TypeAvro},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			e := newSREnv(t)
			run := e.produceSR(t, tc.input+"\n", append([]string{"-t", "t", "--schema-registry", e.url()}, tc.args...)...)
			require.Equal(t, 0, run.Code, run.Stderr)
			got, ok := e.reg.GetSchema("t-value", 1)
			require.True(t, ok)
			assert.Equal(t, tc.want, got.Type)
			assert.Equal(t, got.ID, schemaID(t, e.readBack(t, "t", 1)[0].Value))
		})
	}
}

// TestSchemaConsoleKeyFileLatestAndNoRegister: the console producers' key
// schema file, use.latest.version and auto.register.schemas=false do what
// kproduce's --key-schema, --use-latest-version and --auto-register=false
// do.
func TestSchemaConsoleKeyFileLatestAndNoRegister(t *testing.T) {
	e := newSREnv(t)
	value := writeFile(t, "order.avsc", orderAvsc)
	key := writeFile(t, "key.avsc", `{"type":"record","name":"OrderKey","namespace":"shop","fields":[{"name":"id","type":"long"}]}`)
	line := `{"id":7}|{"id":7,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}` + "\n"
	console := []string{"-t", "t", "--property", "schema.registry.url=" + e.url(), "--property", "parse.key=true", "--property", "key.separator=|"}

	run := e.produceSR(t, line, append(console, "--property", "value.schema.file="+value, "--property", "key.schema.file="+key,
		"--property", "auto.register.schemas=false")...)
	assert.Equal(t, 1, run.Code, "nothing registered yet")
	assert.Contains(t, run.Stderr, `look up the schema under subject "t-value": HTTP 404`)
	assert.False(t, e.reg.SubjectExists("t-value"))

	run = e.produceSR(t, line, append(console, "--property", "value.schema.file="+value, "--property", "key.schema.file="+key)...)
	require.Equal(t, 0, run.Code, run.Stderr)
	rec := e.readBack(t, "t", 1)[0]
	k, err := avroDecode(e.avroDecoder(t, serde.KeySerde), rec.Key)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": int64(7)}, k)

	wider := strings.Replace(orderAvsc, `{"name":"id","type":"long"},`, `{"name":"id","type":"long"},{"name":"extra","type":"int","default":5},`, 1)
	latest, _, err := e.reg.RegisterSchema("t-value", sr.Schema{Schema: wider, Type: sr.TypeAvro})
	require.NoError(t, err)
	run = e.produceSR(t, line, append(console, "--property", "value.schema.file="+value, "--property", "key.schema.file="+key,
		"--property", "use.latest.version=true", "--property", "auto.register.schemas=false")...)
	require.Equal(t, 0, run.Code, run.Stderr)
	rec = e.readBack(t, "t", 2)[1]
	assert.Equal(t, latest, schemaID(t, rec.Value), "encoded with the subject's latest schema")
	v, err := avroDecode(e.avroDecoder(t, serde.ValueSerde), rec.Value)
	require.NoError(t, err)
	assert.Equal(t, 5, v.(map[string]any)["extra"])
	assert.Equal(t, 1, e.requests()["POST /subjects/t-value/versions"], "only the run with auto-registration registered")
}

// TestSchemaKeysInEveryInputFormat: a key schema encodes the key of a
// -f json record, of a format string's %k and of -k, and json reports
// name both ids.
func TestSchemaKeysInEveryInputFormat(t *testing.T) {
	e := newSREnv(t)
	value := writeFile(t, "r.avsc", stringAvsc)
	key := writeFile(t, "key.avsc", `{"type":"record","name":"K","fields":[{"name":"id","type":"long"}]}`)
	args := []string{"-t", "t", "--schema-registry", e.url(), "--value-schema", value, "--key-schema", key, "-o", "json"}
	runs := []kafkatest.Result{
		e.produceSR(t, `{"key":{"id":1},"value":{"s":"a"}}`+"\n", append(args, "-f", "json")...),
		e.produceSR(t, `{"id":2} {"s":"b"}`+"\n", append(args, "-f", `%k %v\n`)...),
		e.produceSR(t, `{"s":"c"}`+"\n", append(args, "-k", `{"id":3}`)...),
	}
	vs, ok := e.reg.GetSchema("t-value", 1)
	require.True(t, ok)
	ks, ok := e.reg.GetSchema("t-key", 1)
	require.True(t, ok)
	for _, run := range runs {
		require.Equal(t, 0, run.Code, run.Stderr)
		assert.Contains(t, run.Stdout, fmt.Sprintf(`"key_schema_id":%d,"value_schema_id":%d}`, ks.ID, vs.ID))
	}
	keys := e.avroDecoder(t, serde.KeySerde)
	for i, rec := range e.readBack(t, "t", 3) {
		k, err := avroDecode(keys, rec.Key)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"id": int64(i + 1)}, k)
	}
}
