package versioncmd

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStampedBeatsBuildInfo: what a release build stamps replaces what
// the build information says; nothing stamped leaves it as it is, so a
// go install'ed binary still shows its module version.
func TestStampedBeatsBuildInfo(t *testing.T) {
	checkout := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0dc3d71"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}})
	release := checkout.stamped(Stamp{Version: "v0.5.0", Commit: "a1b2c3", Date: "2026-12-02T03:04:05Z", TreeState: "clean"})
	assert.Equal(t, Info{Version: "v0.5.0", Commit: "a1b2c3", Date: "2026-12-02T03:04:05Z", Go: checkout.Go}, release)
	dirty := checkout.stamped(Stamp{Version: "v0.5.0-snapshot.ga1b2c3", Commit: "a1b2c3", TreeState: "dirty"})
	assert.True(t, dirty.Modified)
	assert.Equal(t, "2026-12-01T10:00:00Z", dirty.Date, "a date not stamped stays the build information's")

	installed := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Path: "github.com/kproduce/kproduce", Version: "v0.4.0"}})
	assert.Equal(t, installed, installed.stamped(Stamp{}))
	assert.Equal(t, "v0.4.0", installed.stamped(linkerStamp()).Version, "a test binary has nothing stamped")
}
