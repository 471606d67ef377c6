package cmdutil

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBoundAfterInterrupt(t *testing.T) {
	t.Run("not interrupted", func(t *testing.T) {
		bounded, cancel := BoundAfterInterrupt(context.Background(), 0)
		assert.NoError(t, bounded.Err(), "no end of its own before an interrupt")
		cancel()
		assert.ErrorIs(t, bounded.Err(), context.Canceled)
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, interrupt := context.WithCancel(context.Background())
		bounded, cancel := BoundAfterInterrupt(ctx, time.Millisecond)
		defer cancel()
		interrupt()
		select {
		case <-bounded.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the bounded context did not end after the interrupt")
		}
	})
	t.Run("interrupted before", func(t *testing.T) {
		ctx, interrupt := context.WithCancel(context.Background())
		interrupt()
		bounded, cancel := BoundAfterInterrupt(ctx, 0)
		defer cancel()
		select {
		case <-bounded.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the bounded context did not end")
		}
	})
}
