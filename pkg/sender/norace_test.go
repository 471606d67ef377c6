//go:build !race

package sender

// raceEnabled reports a race-detector build (see race_test.go).
const raceEnabled = false
