package versioncmd

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReadAndString(t *testing.T) {
	info := Read()
	assert.NotEmpty(t, info.Version)
	assert.True(t, strings.HasPrefix(info.Go, runtime.Version()))
	text := Info{Version: "v1.2.3", Commit: "abc", Modified: true, Date: "2026-01-02T03:04:05Z", Go: "go1.26 linux/amd64"}.String()
	assert.Equal(t, "kproduce v1.2.3\ncommit  abc (modified)\ndate    2026-01-02T03:04:05Z\ngo      go1.26 linux/amd64\n", text)
	assert.Equal(t, "kproduce (devel)\ngo      go1.26\n", Info{Version: "(devel)", Go: "go1.26"}.String())
}

// TestFromBuildInfo: a go install'ed binary shows its module version; a
// checkout build its commit, date and whether the tree was modified.
func TestFromBuildInfo(t *testing.T) {
	installed := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Path: "github.com/kproduce/kproduce", Version: "v0.4.0"}})
	assert.Equal(t, "v0.4.0", installed.Version)
	assert.Empty(t, installed.Commit)
	checkout := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0dc3d71"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}})
	assert.Equal(t, Info{Version: "(devel)", Commit: "0dc3d71", Date: "2026-12-01T10:00:00Z", Modified: true, Go: checkout.Go}, checkout)
}
