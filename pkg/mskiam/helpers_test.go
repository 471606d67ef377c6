package mskiam_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeFile writes content to the file the environment variable names.
func writeFile(t *testing.T, env, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(os.Getenv(env), []byte(content), 0o600))
}
