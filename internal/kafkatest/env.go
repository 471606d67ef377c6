package kafkatest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RunIsolated runs the tests of m with a kproduce environment of their
// own: XDG_CONFIG_HOME an empty directory, so that no default config file
// (~/.config/kproduce/config.yaml) of the machine is read, and no
// KPRODUCE_* variable of the caller's, nor any of rpk's RPK_* (which
// kproduce reads too). Use it in TestMain.
func RunIsolated(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kproduce-test-config-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	_ = os.Chmod(dir, 0o755) // tests run kproduce as another user too
	_ = os.Setenv("XDG_CONFIG_HOME", dir)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "KPRODUCE_") || strings.HasPrefix(name, "RPK_") {
			_ = os.Unsetenv(name)
		}
	}
	return m.Run()
}

// WithDefaultConfig writes text to the default config file,
// $XDG_CONFIG_HOME/kproduce/config.yaml, under an XDG_CONFIG_HOME of the
// test's own (so the test cannot run in parallel), and returns its path.
func WithDefaultConfig(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.Mkdir(filepath.Join(dir, "kproduce"), 0o700); err != nil {
		t.Fatal(err)
	}
	return WriteFile(t, filepath.Join(dir, "kproduce"), "config.yaml", []byte(text))
}

// startEnv is the environment as the test binary started, before
// RunIsolated cleared the KPRODUCE_* variables: the tests' own switches
// (KPRODUCE_LONG_TESTS, KPRODUCE_FAULT_DEBUG) are read from it. It is set
// once, before any test runs, and never changed.
var startEnv = os.Environ()

// Getenv returns the value the environment variable name had when the
// test binary started ("" when unset), whatever RunIsolated cleared since.
func Getenv(name string) string {
	for _, kv := range startEnv {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

// LongTests reports whether the long tests were asked for:
// KPRODUCE_LONG_TESTS set, to anything, when the test binary started.
func LongTests() bool { return Getenv("KPRODUCE_LONG_TESTS") != "" }
