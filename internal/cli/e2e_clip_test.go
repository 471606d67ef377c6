package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// TestErrorsClipWhatTheyQuote gives a 100 KB format string that does not
// parse, and a 100 KB one whose text a record does not match: the errors
// quote the first bytes and say how much was left out.
func TestErrorsClipWhatTheyQuote(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	r := runCtx(t, context.Background(), nil, "-t", "t", "-f", "%v"+long+"%Q")
	assert.Equal(t, cmdutil.ExitUsage, r.code)
	assert.Less(t, len(r.stderr), 1000, r.stderr[:min(len(r.stderr), 300)])
	assert.Contains(t, r.stderr, "(100004 bytes; the first 64 shown): bad format string: unknown verb %Q")

	r = runCtx(t, context.Background(), strings.NewReader(strings.Repeat("y", 100_000)+"v\n"), "-t", "t", "--dry-run", "--partitions", "1",
		"-f", long+"%v\n")
	assert.Equal(t, cmdutil.ExitFailed, r.code)
	assert.Less(t, len(r.stderr), 1000, r.stderr[:min(len(r.stderr), 300)])
	assert.Contains(t, r.stderr, "(100000 bytes; the first 64 shown)")
}
