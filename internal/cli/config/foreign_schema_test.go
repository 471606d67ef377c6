package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestForeignSchemaFlagsPointAtTheRegistryOptions: the hints for other
// tools' serializer and registry flags name kproduce's Schema Registry
// options; rpk's --schema-id and --schema-type are accepted as aliases,
// so they need none.
func TestForeignSchemaFlagsPointAtTheRegistryOptions(t *testing.T) {
	for _, flag := range []string{"-r", "-s", "--key-serializer", "--value-serializer"} {
		assert.Contains(t, FlagHint(flag), "--schema-registry", flag)
		assert.NotContains(t, FlagHint(flag), "not supported", flag)
	}
	for _, alias := range []string{"schema-id", "schema-key-id", "schema-type", "schema-key-type"} {
		assert.Empty(t, FlagHint("--"+alias), alias)
		assert.Contains(t, AliasNames(), alias)
	}
}
