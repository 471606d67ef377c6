package kafkatest

import (
	"fmt"
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

// WriteFiles writes n files into dir, named f000000, f000001 and so on,
// file i holding content(i), and returns their paths in order.
func WriteFiles(t testing.TB, dir string, n int, content func(i int) string) []string {
	t.Helper()
	paths := make([]string, n)
	for i := range paths {
		paths[i] = WriteFile(t, dir, fmt.Sprintf("f%06d", i), []byte(content(i)))
	}
	return paths
}
