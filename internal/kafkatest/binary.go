package kafkatest

import (
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// binary is the kproduce binary of one test process, built on first use.
var binary struct {
	once sync.Once
	path string
	out  []byte // the build's output
	err  error
}

// Binary returns the path of the kproduce binary built from this source
// tree (CGO_ENABLED=0, the static binary of a release), building it once
// per test process, for the tests that need a real process: signals,
// closed pipes, exit statuses, peak memory, librdkafka's mock cluster.
//
// It lives in one directory per source tree under the system's temporary
// directory, readable by every user (a test runs it as another user), so
// that runs do not pile up binaries: each test process rebuilds it (quick
// with the build cache) and renames it into place, which is safe while
// another process runs the previous one.
func Binary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() { binary.path, binary.out, binary.err = buildBinary() })
	if binary.err != nil {
		t.Fatalf("go build ./cmd/kproduce: %v\n%s", binary.err, binary.out)
	}
	return binary.path
}

// buildBinary builds cmd/kproduce and returns the binary's path and the
// build's output.
func buildBinary() (string, []byte, error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", nil, fmt.Errorf("no source path to find the module from")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..")
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("kproduce-test-%d-%08x", os.Getuid(), crc32.ChecksumIEEE([]byte(root))))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", nil, err
	}
	tmp, err := os.CreateTemp(dir, "build-")
	if err != nil {
		return "", nil, err
	}
	_ = tmp.Close()
	cmd := exec.Command("go", "build", "-o", tmp.Name(), "./cmd/kproduce")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", out, err
	}
	path := filepath.Join(dir, "kproduce")
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return "", out, err
	}
	return path, out, nil
}
