package docgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsAreCurrent fails when the committed reference pages differ from
// what the command tree generates: run go generate ./internal/cli.
func TestDocsAreCurrent(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, GenerateDocs(dir))
	for _, sub := range []string{"reference", "man"} {
		want := readDir(t, filepath.Join(dir, sub))
		got := readDir(t, filepath.Join("..", "..", "..", "docs", sub))
		require.NotEmpty(t, want)
		for name, text := range want {
			assert.Equal(t, text, got[name], "docs/%s/%s is stale: run go generate ./internal/cli", sub, name)
		}
		for name := range got {
			_, ok := want[name]
			assert.True(t, ok, "docs/%s/%s is not generated any more: remove it (go generate ./internal/cli)", sub, name)
		}
	}
}

// readDir returns the files of dir by name; nothing for a missing dir.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(data)
	}
	return files
}
