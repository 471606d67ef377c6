//go:build race

package protocol

// czRaceEnabled reports a race-detector build, where sync.Pool drops items
// at random and allocation counts are meaningless.
const czRaceEnabled = true
