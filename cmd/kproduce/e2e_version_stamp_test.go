package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReleaseStampInVersion builds kproduce as scripts/release.sh does,
// with -ldflags -X stamping the version, commit, date and tree state, and
// with GOFLAGS=-buildvcs=false (which leaves no VCS information in the
// binary): --version and version -o json show what was stamped.
func TestReleaseStampInVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "kproduce")
	const pkg = "github.com/kproduce/kproduce/internal/cli/versioncmd"
	ldflags := strings.Join([]string{"-X", pkg + ".version=v9.8.7", "-X", pkg + ".commit=0123456789abcdef0123456789abcdef01234567",
		"-X", pkg + ".date=2026-12-02T03:04:05Z", "-X", pkg + ".treeState=clean"}, " ")
	build := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false", "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	out, err = exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 4, "%s", out)
	assert.Equal(t, "kproduce v9.8.7", lines[0])
	assert.Equal(t, "commit  0123456789abcdef0123456789abcdef01234567", lines[1])
	assert.Equal(t, "date    2026-12-02T03:04:05Z", lines[2])
	assert.True(t, strings.HasPrefix(lines[3], "go      go1."), lines[3])

	out, err = exec.Command(bin, "version", "-o", "json").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), `"version":"v9.8.7","commit":"0123456789abcdef0123456789abcdef01234567","modified":false,"date":"2026-12-02T03:04:05Z"`)
}
