package config

import (
	"bytes"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// parseOptions resolves options from a command line the way the command
// does, returning what was logged on stderr.
func parseOptions(t testing.TB, args ...string) (*Options, string, error) {
	t.Helper()
	fs := pflag.NewFlagSet("kproduce", pflag.ContinueOnError)
	AddFlags(fs)
	require.NoError(t, fs.Parse(args))
	var stderr bytes.Buffer
	opts, err := Load(fs, fs.Args(), &stderr)
	return opts, stderr.String(), err
}

// mustOptions is parseOptions that requires success.
func mustOptions(t testing.TB, args ...string) *Options {
	t.Helper()
	opts, _, err := parseOptions(t, args...)
	require.NoError(t, err)
	return opts
}
