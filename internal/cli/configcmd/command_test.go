package configcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// describe runs the command, built alone, with args; it returns the
// options runF got (nil when it was not called), what the command printed
// and its error.
func describe(t *testing.T, args ...string) (*Options, string, error) {
	t.Helper()
	return kafkatest.Resolve(t, func(s cmdutil.Streams, keep func(context.Context, *Options) error) *cobra.Command {
		return NewCommand(s, func(o *Options) error { return keep(context.Background(), o) })
	}, args...)
}

// settings indexes a description's settings by name.
func settings(d *config.Description) map[string]config.Setting {
	m := make(map[string]config.Setting, len(d.Settings))
	for _, s := range d.Settings {
		m[s.Name] = s
	}
	return m
}

// TestNewCommandOrigins: each setting says where its value came from: a
// flag, a property, the environment, the config file and line (with the
// profile), or the default; a value a rule derived says its cause; a
// secret is redacted whatever gave it.
func TestNewCommandOrigins(t *testing.T) { // not parallel: it sets the environment
	dir := t.TempDir()
	file := filepath.Join(dir, "kproduce.yaml")
	require.NoError(t, os.WriteFile(file, []byte("client-id: from-file\nprofiles:\n  p:\n    sasl-password: hunter2\n    brokers: [p:9092]\n"), 0o600))
	t.Setenv("KPRODUCE_LINGER", "7ms")
	o, printed, err := describe(t, "--config", file, "--profile", "p", "--compression", "zstd", "-X", "acks=1", "--json")
	require.NoError(t, err)
	require.NotNil(t, o)
	assert.Empty(t, printed, "runF prints, not the command")
	assert.True(t, o.JSON)
	d := o.Description
	assert.Equal(t, file, d.ConfigFile)
	assert.Equal(t, "p", d.Profile)
	s := settings(d)
	for _, want := range []config.Setting{
		{Name: "compression", Value: "zstd", Origin: "flag --compression"},
		{Name: "acks", Value: "1", Origin: "-X acks"},
		{Name: "linger", Value: "7ms", Origin: "env KPRODUCE_LINGER"},
		{Name: "client-id", Value: "from-file", Origin: file + ":1"},
		{Name: "brokers", Value: "p:9092", Origin: file + ":5 (profile p)"},
		{Name: "sasl-password", Value: "[redacted]", Origin: file + ":4 (profile p)"},
		{Name: "batch-size", Value: "1MiB", Origin: "default"},
		{Name: "idempotence", Value: "false", Origin: "derived: acks=1"},
	} {
		assert.Equal(t, want, s[want.Name], want.Name)
	}
	for _, st := range d.Settings {
		assert.NotContains(t, st.Value, "hunter2", st.Name)
	}
}

// TestNewCommandPrints: without a runF the command prints the description
// as an aligned table (or one JSON object with --json), the secret
// redacted.
func TestNewCommandPrints(t *testing.T) {
	var out, errOut bytes.Buffer
	cmd := NewCommand(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, nil)
	cmd.SetArgs([]string{"--sasl-password", "hunter2", "--linger", "20ms"})
	require.NoError(t, cmd.Execute())
	assert.Empty(t, errOut.String())
	text := out.String()
	assert.True(t, strings.HasPrefix(text, "config file:  none\nprofile:      none\n\nNAME"), text)
	assert.Regexp(t, `(?m)^linger +20ms +flag --linger$`, text)
	assert.Regexp(t, `(?m)^sasl-password +\[redacted\] +flag --sasl-password$`, text)
	assert.NotContains(t, text, "hunter2")

	out.Reset()
	cmd = NewCommand(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, nil)
	cmd.SetArgs([]string{"--json", "--sasl-password", "hunter2"})
	require.NoError(t, cmd.Execute())
	var d config.Description
	require.NoError(t, json.Unmarshal(out.Bytes(), &d), out.String())
	assert.Equal(t, config.Setting{Name: "sasl-password", Value: "[redacted]", Origin: "flag --sasl-password"}, settings(&d)["sasl-password"])
	assert.NotContains(t, out.String(), "hunter2")
}

// TestNewCommandRefusesBadSettings: a bad value or an argument is a usage
// error naming it, returned for the caller to print; runF is not called.
func TestNewCommandRefusesBadSettings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--linger", "soon"}, `--linger "soon"`},
		{[]string{"--acks", "7"}, "--acks"},
		{[]string{"extra"}, `unexpected argument "extra": kproduce config takes none`},
		{[]string{"--config", "/nonexistent/kproduce.yaml"}, "/nonexistent/kproduce.yaml"},
	} {
		o, printed, err := describe(t, tc.args...)
		assert.Nil(t, o, "%v", tc.args)
		require.Error(t, err, "%v", tc.args)
		assert.True(t, cmdutil.IsUsageError(err), "%v: %v is a usage error", tc.args, err)
		assert.Contains(t, err.Error(), tc.want, "%v", tc.args)
		assert.Empty(t, printed, "%v", tc.args)
	}
}
