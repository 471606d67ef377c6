package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnreadableDefaultConfigIsAWarning: a default config file that cannot
// be read (a directory, a path through a file, no permission) is a
// warning and none is read; the same file named with --config or
// KPRODUCE_CONFIG is an error.
func TestUnreadableDefaultConfigIsAWarning(t *testing.T) {
	cases := map[string]func(t *testing.T) string{
		"a directory": func(t *testing.T) string {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "kproduce", "config.yaml"), 0o700))
			return dir
		},
		"a path through a file": func(t *testing.T) string {
			f := filepath.Join(t.TempDir(), "file")
			require.NoError(t, os.WriteFile(f, nil, 0o600))
			return f
		},
	}
	if os.Geteuid() != 0 { // root reads any file
		cases["no permission"] = func(t *testing.T) string {
			dir := t.TempDir()
			path := filepath.Join(dir, "kproduce", "config.yaml")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
			require.NoError(t, os.WriteFile(path, []byte("linger: 1s\n"), 0o000))
			return dir
		}
	}
	for name, xdg := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", xdg(t))
			def := DefaultConfigPath()
			opts, stderr, err := parseOptions(t, "-t", "t")
			require.NoError(t, err)
			assert.Empty(t, opts.ConfigFile)
			assert.Contains(t, stderr, "the default config file "+def+" cannot be read")
			assert.Contains(t, stderr, "none read")

			_, _, err = parseOptions(t, "-t", "t", "--config", def)
			assert.Error(t, err, "named with --config it is an error")
			t.Setenv("KPRODUCE_CONFIG", def)
			_, _, err = parseOptions(t, "-t", "t")
			assert.Error(t, err, "named with KPRODUCE_CONFIG it is an error")
		})
	}
}
