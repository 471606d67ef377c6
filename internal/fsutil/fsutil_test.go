package fsutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte("12345"), 0o600))
	data, err := ReadFile(path, 5)
	require.NoError(t, err)
	assert.Equal(t, "12345", string(data), "a file of exactly the limit")
	_, err = ReadFile(path, 4)
	assert.ErrorContains(t, err, "is larger than 4 bytes")
	_, err = ReadFile(filepath.Join(t.TempDir(), "missing"), 5)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
