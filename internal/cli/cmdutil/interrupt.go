package cmdutil

import (
	"context"
	"time"
)

// BoundAfterInterrupt returns the context of what a command still does
// once ctx may have ended (an interrupt): flushing the records in flight.
// It ends limit after ctx ends (at once if limit is 0), or when cancel is
// called; until ctx ends it does not end on its own.
func BoundAfterInterrupt(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	bounded, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(limit, cancel)
		context.AfterFunc(bounded, func() { t.Stop() })
	})
	return bounded, func() {
		stop()
		cancel()
	}
}
