package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDevBrokerScriptReusesBuild runs scripts/devbroker.sh in a copy of
// the tree's layout where bin/devbroker (which scripts/quickstart.sh
// builds) stands in for the broker and go is a stand-in that records each
// build: a binary newer than its sources is run without a build; a source
// changed after it makes the script build again.
func TestDevBrokerScriptReusesBuild(t *testing.T) {
	script, err := os.ReadFile("../devbroker.sh")
	require.NoError(t, err)
	root := t.TempDir()
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(root, path)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), mode))
	}
	write("scripts/devbroker.sh", string(script), 0o755)
	write("scripts/devbroker/main.go", "package main\n", 0o644)
	write("pkg/network/network.go", "package network\n", 0o644)
	write("go.mod", "module example\n", 0o644)
	write("go.sum", "", 0o644)
	// The stand-in go "builds" a broker that prints its arguments.
	write("tools/go", `#!/bin/sh
echo build >>"$GO_LOG"
while [ "$1" != "-o" ]; do shift; done
printf '#!/bin/sh\necho ready "$@"\n' >"$2"
chmod +x "$2"
`, 0o755)
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"scripts/devbroker/main.go", "pkg/network/network.go", "go.mod", "go.sum"} {
		require.NoError(t, os.Chtimes(filepath.Join(root, p), old, old))
	}
	log := filepath.Join(root, "go.log")
	run := func() string {
		t.Helper()
		cmd := exec.Command("sh", filepath.Join(root, "scripts/devbroker.sh"), "-port", "9")
		cmd.Env = append(os.Environ(), "PATH="+filepath.Join(root, "tools")+":/usr/bin:/bin", "GO_LOG="+log)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	builds := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "build")
	}

	assert.Equal(t, "ready -port 9\n", run())
	assert.Equal(t, 1, builds(), "no bin/devbroker: built")
	assert.Equal(t, "ready -port 9\n", run())
	assert.Equal(t, 1, builds(), "bin/devbroker newer than its sources: run as it is")

	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(root, "pkg/network/network.go"), later, later))
	run()
	assert.Equal(t, 2, builds(), "a source newer than bin/devbroker: built again")
}
