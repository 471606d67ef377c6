package metadatacmd_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// TestE2EMetadataUsage: bad options, arguments, flags or config files are
// usage errors, exit 2, printed by the command tree.
func TestE2EMetadataUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"metadata", "-o", "yaml"},
		{"metadata", "--timeout", "soon"},
		{"metadata", "extra-argument"},
		{"metadata", "--no-such-flag"},
		{"metadata", "--config", filepath.Join(dir, "missing.yaml")},
	} {
		res := runKproduce(t, nil, args...)
		assert.Equal(t, cmdutil.ExitUsage, res.Code, "%v: %s", args, res.Stderr)
		assert.Contains(t, res.Stderr, "error: ", args)
	}
}
