package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestSubcommandTimeoutAnnounced: check and metadata with --timeout D
// against an address where nothing listens announce that they retry for
// up to D, not the 10s bootstrap default.
func TestSubcommandTimeoutAnnounced(t *testing.T) {
	addr := networktest.ClosedAddr(t)
	for _, args := range [][]string{
		{"check", "-b", addr, "-t", "t", "--timeout", "1500ms"},
		{"metadata", "-b", addr, "--timeout", "1500ms"},
	} {
		r := runCtx(t, context.Background(), nil, args...)
		assert.Equal(t, cmdutil.ExitFailed, r.code, r.stderr)
		assert.Contains(t, r.stderr, "retrying for up to 1.5s", args[0])
		assert.NotContains(t, r.stderr, "10s", args[0])
	}
}
