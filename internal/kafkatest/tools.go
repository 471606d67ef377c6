package kafkatest

import (
	"os"
	"os/exec"
	"testing"
)

// RequireTool returns the path of the command name, which the Debian
// package pkg provides. Where it is missing, the test fails when the
// package could have been installed (CI runs as root with apt-get, and
// .ci/run installs it), and is skipped with the reason otherwise.
func RequireTool(t testing.TB, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if _, aptErr := exec.LookPath("apt-get"); aptErr == nil && os.Geteuid() == 0 {
		t.Fatalf("%s is missing: apt-get install %s (.ci/run installs it)", name, pkg)
	}
	t.Skipf("%s is missing and cannot be installed here (not root, or no apt-get): Debian package %s", name, pkg)
	return ""
}
