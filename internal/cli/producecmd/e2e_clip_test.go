package producecmd_test

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
	r := runKproduceCtx(t, context.Background(), nil, "-t", "t", "-f", "%v"+long+"%Q")
	assert.Equal(t, cmdutil.ExitUsage, r.Code)
	assert.Less(t, len(r.Stderr), 1000, r.Stderr[:min(len(r.Stderr), 300)])
	assert.Contains(t, r.Stderr, "(100004 bytes; the first 64 shown): bad format string: unknown verb %Q")

	r = runKproduceCtx(t, context.Background(), strings.NewReader(strings.Repeat("y", 100_000)+"v\n"), "-t", "t", "--dry-run", "--partitions", "1", "-f", long+"%v\n")
	assert.Equal(t, cmdutil.ExitFailed, r.Code)
	assert.Less(t, len(r.Stderr), 1000, r.Stderr[:min(len(r.Stderr), 300)])
	assert.Contains(t, r.Stderr, "(100000 bytes; the first 64 shown)")
}
