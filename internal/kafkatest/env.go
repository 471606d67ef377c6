package kafkatest

import (
	"os"
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
