package producecmd_test

import (
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
)

func TestSchemaJSONRecordsAndFormatStrings(t *testing.T) {
	e := newSREnv(t)
	value := writeFile(t, "r.avsc", stringAvsc)
	run := e.produceSR(t, `{"topic":"t","key":"k1","value":{"s":"from an object"}}`+"\n"+
		`{"value":"{\"s\":\"from a string\"}","headers":{"h":"1"}}`+"\n"+
		`{"value":null}`+"\n",
		"-t", "t", "-f", "json", "--schema-registry", e.url(), "--value-schema", value)
	require.Equal(t, 0, run.Code, run.Stderr)
	run = e.produceSR(t, "k2 {\"s\":\"from a format string\"}\n", "-t", "t", "-f", "%k %v\\n", "--schema-registry", e.url(), "--value-schema", value)
	require.Equal(t, 0, run.Code, run.Stderr)

	recs := e.readBack(t, "t", 4)
	d := e.avroDecoder(t, serde.ValueSerde)
	for i, want := range []string{"from an object", "from a string", "", "from a format string"} {
		if want == "" {
			assert.Nil(t, recs[i].Value, "null stays a tombstone")
			continue
		}
		v, err := avroDecode(d, recs[i].Value)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"s": want}, v)
	}
	assert.Equal(t, "k1", string(recs[0].Key), "a key without a key schema is raw bytes")
	assert.Equal(t, "k2", string(recs[3].Key))
	assert.Equal(t, "h", recs[1].Headers[0].Key)
}

func TestSchemaTombstonesAreNeverEncoded(t *testing.T) {
	e := newSREnv(t)
	value := writeFile(t, "r.avsc", stringAvsc)
	run := e.produceSR(t, "k1:NULL\nk2:\nk3: null \n", "-t", "t", "-K", ":", "--null", "NULL", "-Z",
		"--schema-registry", e.url(), "--value-schema", value)
	require.Equal(t, 0, run.Code, run.Stderr)
	for _, rec := range e.readBack(t, "t", 3) {
		assert.Nil(t, rec.Value, "key %s", rec.Key)
	}
}

func TestSchemaRegistryOverTLS(t *testing.T) {
	e := newSREnv(t)
	srv := httptest.NewUnstartedServer(e.reg.Handler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))
	value := writeFile(t, "r.avsc", stringAvsc)
	hostPort := strings.TrimPrefix(srv.URL, "https://")

	run := e.produceSR(t, `{"s":"x"}`+"\n", "-t", "t", "--schema-registry", srv.URL, "--value-schema", value)
	assert.Equal(t, 1, run.Code, "an unknown CA is refused")
	assert.Contains(t, run.Stderr, "certificate")

	for name, args := range map[string][]string{
		"native": {"--schema-registry", srv.URL, "--schema-registry-ca", ca},
		"rpk":    {"-X", "registry.hosts=" + hostPort, "-X", "registry.tls.enabled=true", "-X", "registry.tls.ca=" + ca},
		"skip":   {"--schema-registry", hostPort, "--schema-registry-insecure-skip-verify"},
	} {
		t.Run(name, func(t *testing.T) {
			run := e.produceSR(t, `{"s":"x"}`+"\n", append([]string{"-t", "t", "--value-schema", value}, args...)...)
			require.Equal(t, 0, run.Code, run.Stderr)
		})
	}
	assert.EqualValues(t, 3, e.endOffset(t, "t"))
}

func TestSchemaResumeKeepsTheSchemaOptions(t *testing.T) {
	e := newSREnv(t)
	a := writeFile(t, "a.avsc", stringAvsc)
	b := writeFile(t, "b.avsc", strings.Replace(stringAvsc, `"name":"R"`, `"name":"S"`, 1))
	data := writeFile(t, "in.json", `{"s":"1"}`+"\n"+`{"s":"2"}`+"\n")
	args := []string{"-t", "t", "--transactional-id", "load", "--resume", "--schema-registry", e.url(), "-o", "none"}
	run := e.produceSR(t, "", append(args, "--value-schema", a, "-c", "1", data)...)
	require.Equal(t, 0, run.Code, run.Stderr)
	run = e.produceSR(t, "", append(args, "--value-schema", b, data)...)
	assert.Equal(t, 2, run.Code)
	assert.Contains(t, run.Stderr, "value-schema")
	assert.Contains(t, run.Stderr, "earlier run")
	for _, changed := range []struct {
		args []string
		want string
	}{
		{[]string{"--value-schema", a, "--subject-strategy", "record"}, "--value-schema-settings was"},
		{[]string{"--value-schema", a, "--use-latest-version"}, "--value-schema-settings was"},
		{[]string{"--value-schema", a, "-k", `"k"`}, "--key was"},
		{[]string{"--value-schema", a, "-k", `"k"`, "--key-schema-text", `"string"`}, `--key-schema was "(none)" in the earlier run`},
	} {
		run = e.produceSR(t, "", append(append(args, changed.args...), data)...)
		assert.Equal(t, 2, run.Code, "%v: %s", changed.args, run.Stderr)
		assert.Contains(t, run.Stderr, changed.want, "%v", changed.args)
	}
	run = e.produceSR(t, "", append(args, data)...)
	assert.Equal(t, 2, run.Code, "a value schema left out: %s", run.Stderr)
	assert.Contains(t, run.Stderr, `in the earlier run, "(none)" now`)
	run = e.produceSR(t, "", append(args, "--value-schema", a, data)...)
	require.Equal(t, 0, run.Code, run.Stderr)
	recs := e.readBack(t, "t", 2)
	d, err := avrov2.NewDeserializer(e.confluentClient(t), serde.ValueSerde, avrov2.NewDeserializerConfig())
	require.NoError(t, err)
	for i, rec := range recs {
		v, err := avroDecode(d, rec.Value)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"s": []string{"1", "2"}[i]}, v)
	}
}

func TestSchemaKeyWithRecordStrategyAndJSONSchemaKey(t *testing.T) {
	e := newSREnv(t)
	key := writeFile(t, "key.json", `{"title":"shop.Key","type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)
	value := writeFile(t, "r.avsc", stringAvsc)
	run := e.produceSR(t, `{"id":1}|{"s":"x"}`+"\n"+`{"id":"no"}|{"s":"y"}`+"\n", "-t", "t", "-K", "|",
		"--schema-registry", e.url(), "--value-schema", value, "--key-schema", key, "--key-subject-strategy", "record")
	assert.Equal(t, 1, run.Code)
	assert.Contains(t, run.Stderr, "-:2: t/-1: key: field .id: ")
	ks, ok := e.reg.GetSchema("shop.Key", 1)
	require.True(t, ok)
	assert.Equal(t, sr.TypeJSON, ks.Type)
	rec := e.readBack(t, "t", 1)[0]
	assert.Equal(t, ks.ID, schemaID(t, rec.Key))
	assert.Equal(t, `{"id":1}`, string(rec.Key[5:]))
}
