package producecmd_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// TestSchemaOptionsFromEnvironmentFileAndProfile: the Schema Registry
// options are settings like any other: KPRODUCE_* variables, config file
// keys and a profile's keys, shown by kproduce config with where each came
// from and the credentials redacted.
func TestSchemaOptionsFromEnvironmentFileAndProfile(t *testing.T) {
	e := newSREnv(t, srfake.WithAuth("Basic "+base64.StdEncoding.EncodeToString([]byte("loader:pw-in-file"))))
	value := writeFile(t, "order.avsc", orderAvsc)
	key := writeFile(t, "key.avsc", `{"type":"record","name":"OrderKey","namespace":"shop","fields":[{"name":"id","type":"long"}]}`)
	cfg := writeFile(t, "config.yaml", fmt.Sprintf(`
schema-registry: http://127.0.0.1:1
profiles:
  sr:
    schema-registry: %s
    schema-registry-user: loader:pw-in-file
    value-schema: %s
    subject-strategy: record
`, e.url(), value))
	t.Setenv("KPRODUCE_KEY_SCHEMA", key)
	t.Setenv("KPRODUCE_KEY_SUBJECT_STRATEGY", "topic")
	line := `{"id":7}|{"id":7,"customer":{"id":3,"name":"ann"},"amount":0,"day":0}` + "\n"
	res := e.produceSR(t, line, "--config", cfg, "--profile", "sr", "-t", "t", "-K", "|")
	require.Equal(t, 0, res.Code, res.Stderr)
	vs, ok := e.reg.GetSchema("shop.Order", 1)
	require.True(t, ok, "the profile's record strategy")
	ks, ok := e.reg.GetSchema("t-key", 1)
	require.True(t, ok, "the environment's key schema and strategy")
	rec := e.readBack(t, "t", 1)[0]
	assert.Equal(t, vs.ID, schemaID(t, rec.Value))
	assert.Equal(t, ks.ID, schemaID(t, rec.Key))
	client, err := schemaregistry.NewClient(schemaregistry.NewConfigWithBasicAuthentication(e.url(), "loader", "pw-in-file"))
	require.NoError(t, err)
	d, err := avrov2.NewDeserializer(client, serde.ValueSerde, avrov2.NewDeserializerConfig())
	require.NoError(t, err)
	d.SubjectNameStrategy = func(string, serde.Type, schemaregistry.SchemaInfo) (string, error) { return "shop.Order", nil }
	v, err := avroDecode(d, rec.Value)
	require.NoError(t, err)
	assert.Equal(t, int64(7), v.(map[string]any)["id"])

	res = runKproduce(t, strings.NewReader(""), "config", "--config", cfg, "--profile", "sr", "-t", "t", "-K", "|")
	code, out, errOut := res.Code, res.Stdout, res.Stderr
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{e.url(), "env KPRODUCE_KEY_SCHEMA", "env KPRODUCE_KEY_SUBJECT_STRATEGY", "[redacted]"} {
		assert.Contains(t, out, want)
	}
	assert.Regexp(t, `(?m)^schema-registry-user\s+\[redacted\]\s+.*profile sr`, out)
	assert.NotContains(t, out+errOut, "pw-in-file")
}
