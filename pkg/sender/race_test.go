//go:build race

package sender

// raceEnabled reports a race-detector build, where sync.Pool drops items
// at random and allocation counts are meaningless.
const raceEnabled = true
