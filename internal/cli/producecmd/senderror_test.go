package producecmd

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kproduce/kproduce/pkg/sender"
)

// TestSendErrorAfterAnInterrupt: a record the producer refused because
// the run's interrupt closed it, or cut its wait short, failed because of
// the interrupt, and says so; before an interrupt the producer's error
// stands.
func TestSendErrorAfterAnInterrupt(t *testing.T) {
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	closed := fmt.Errorf("%w: append to t/0: %w", sender.ErrClosed, errors.New("closed"))
	waited := fmt.Errorf("wait for 100 bytes of buffer memory: %w", context.Canceled)
	assert.Equal(t, errInterrupted, sendError(interrupted, closed))
	assert.Equal(t, errInterrupted, sendError(interrupted, waited))
	assert.Equal(t, errInterrupted, sendError(context.Background(), waited))

	err := sendError(context.Background(), closed)
	assert.ErrorIs(t, err, sender.ErrClosed)
	assert.ErrorIs(t, err, sender.ErrNotSent)
}
