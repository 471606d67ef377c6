package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExitCode(t *testing.T) {
	assert.Equal(t, ExitOK, ExitCode(nil))
	assert.NoError(t, Exit(ExitOK))
	assert.Equal(t, ExitInterrupted, ExitCode(Exit(ExitInterrupted)))
	assert.Equal(t, ExitFailed, ExitCode(fmt.Errorf("run: %w", Exit(ExitFailed))))
	assert.Equal(t, ExitUsage, ExitCode(UsageErrorf("bad flag")))
	assert.Equal(t, ExitInterrupted, ExitCode(fmt.Errorf("wait: %w", context.Canceled)))
	assert.Equal(t, ExitFailed, ExitCode(errors.New("boom")))
	assert.True(t, IsReported(Exit(ExitFailed)))
	assert.False(t, IsReported(errors.New("boom")))
}
