package network

import "time"

// Clock tells the time. The Client reads it only after waiting for I/O in
// Poll; every other decision takes the time as a parameter.
type Clock interface {
	// Now is the current time.
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
