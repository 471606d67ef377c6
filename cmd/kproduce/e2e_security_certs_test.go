package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// newTestCerts generates the certificates of one test into its temporary
// directory.
func newTestCerts(t testing.TB) *networktest.CertFiles { return networktest.NewCertFiles(t) }

// writeTestFile writes data to dir/name and returns the path.
func writeTestFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}
