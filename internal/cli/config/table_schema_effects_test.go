package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// schemaEffects are the tests of the Schema Registry rows whose effect
// needs a schema, or a file, to show.
func schemaEffects(t *testing.T) map[string]effect {
	dir := t.TempDir()
	file := filepath.Join(dir, "v.avsc")
	require.NoError(t, os.WriteFile(file, []byte(`"string"`), 0o644))
	reg := []string{"--schema-registry", "http://h:8081"}
	withID := append([]string{"--value-schema-id", "7"}, reg...)
	keyed := append([]string{"-K", ":"}, reg...)
	// A client certificate and its key go together.
	pair := effect{withProperty: []string{"-X", "registry.tls.cert=c.pem", "-X", "registry.tls.key=k.pem"},
		withFlags: []string{"--schema-registry-cert=c.pem", "--schema-registry-key=k.pem"}}
	return map[string]effect{
		"basic.auth.credentials.source":  {withProperty: []string{"-X", "basic.auth.credentials.source=USER_INFO"}, noEffect: true},
		"bearer.auth.credentials.source": {withProperty: []string{"-X", "bearer.auth.credentials.source=STATIC_TOKEN"}, noEffect: true},
		"auto.register.schemas": {base: withID, withProperty: []string{"-X", "auto.register.schemas=false"},
			withFlags: []string{"--auto-register=false"}},
		"use.latest.version": {base: withID, withProperty: []string{"-X", "use.latest.version=true"}, withFlags: []string{"--use-latest-version"}},
		"value.schema":       {base: reg, withProperty: []string{"-X", `value.schema="string"`}, withFlags: []string{`--value-schema-text="string"`}},
		"value.schema.file":  {base: reg, withProperty: []string{"-X", "value.schema.file=" + file}, withFlags: []string{"--value-schema=" + file}},
		"value.schema.id":    {base: reg, withProperty: []string{"-X", "value.schema.id=7"}, withFlags: []string{"--value-schema-id=7"}},
		"key.schema":         {base: keyed, withProperty: []string{"-X", `key.schema="string"`}, withFlags: []string{`--key-schema-text="string"`}},
		"key.schema.file":    {base: keyed, withProperty: []string{"-X", "key.schema.file=" + file}, withFlags: []string{"--key-schema=" + file}},
		"key.schema.id":      {base: keyed, withProperty: []string{"-X", "key.schema.id=3"}, withFlags: []string{"--key-schema-id=3"}},
		"value.schema.full.name": {base: withID, withProperty: []string{"-X", "value.schema.full.name=shop.Order"},
			withFlags: []string{"--value-type=shop.Order"}},
		"value.subject.name.strategy": {base: withID, withProperty: []string{"-X", "value.subject.name.strategy=io.confluent.kafka.serializers.subject.RecordNameStrategy"},
			withFlags: []string{"--subject-strategy=record"}},
		"key.subject.name.strategy": {base: append([]string{"--key-schema-id", "3"}, keyed...),
			withProperty: []string{"-X", "key.subject.name.strategy=io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"},
			withFlags:    []string{"--key-subject-strategy=topic-record"}},
		"registry.tls.cert": pair,
		"registry.tls.key":  pair,
	}
}
