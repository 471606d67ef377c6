package kafkatest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes data to a new file name in dir and returns its path.
func WriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
