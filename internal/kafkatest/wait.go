package kafkatest

import (
	"testing"
	"time"
)

// pollEvery is how often Poll asks its condition.
const pollEvery = 5 * time.Millisecond

// Poll asks cond every few milliseconds until it holds or within has
// passed, and reports whether it held. Tests wait for what they need with
// it (a request the broker received, a line on stdout), never for a
// fixed time.
func Poll(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		<-tick.C
	}
	return true
}

// WaitFor is Poll that fails the test, naming what it waited for, when
// cond does not hold within the time given.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(within, cond) {
		t.Fatalf("timed out after %s waiting for %s", within, what)
	}
}
