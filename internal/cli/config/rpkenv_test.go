package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// TestRPKEnvironment: rpk's variables mean what their -X names mean,
// below kproduce's own variables and above the config file.
func TestRPKEnvironment(t *testing.T) {
	t.Setenv("RPK_BROKERS", "r1:9093,r2")
	t.Setenv("RPK_TLS_INSECURE_SKIP_VERIFY", "true")
	t.Setenv("RPK_SASL_MECHANISM", "SCRAM-SHA-512")
	t.Setenv("RPK_USER", "alice")
	t.Setenv("RPK_PASS", "s3cret")
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("brokers: [file:9092]\nsasl-username: bob\n"), 0o600))
	o, stderr, err := parseOptions(t, "-t", "t", "-F", cfg)
	require.NoError(t, err)
	assert.NotContains(t, stderr, "RPK_")
	assert.Equal(t, []string{"r1:9093", "r2:9092"}, o.Brokers)
	assert.True(t, o.Security.TLSInsecureSkipVerify)
	assert.Equal(t, "SCRAM-SHA-512", o.Security.SASLMechanism)
	assert.Equal(t, "alice", o.Security.SASLUsername)
	assert.Equal(t, "s3cret", o.Security.SASLPassword)

	t.Setenv("KPRODUCE_BROKERS", "own:1")
	o, _, err = parseOptions(t, "-t", "t", "-X", "user=carol")
	require.NoError(t, err)
	assert.Equal(t, []string{"own:1"}, o.Brokers, "KPRODUCE_BROKERS beats RPK_BROKERS")
	assert.Equal(t, "carol", o.Security.SASLUsername, "-X user beats RPK_USER")

	t.Setenv("RPK_TLS_ENABLED", "yes")
	_, _, err = parseOptions(t, "-t", "t")
	require.Error(t, err)
	assert.True(t, cmdutil.IsUsageError(err))
	assert.Contains(t, err.Error(), "env RPK_TLS_ENABLED")
}
