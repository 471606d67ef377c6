//go:build profile

package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// TestProfileRun runs the command in-process on the input file
// PROFILE_RUN_INPUT with the arguments PROFILE_RUN_ARGS
// (space-separated), so that go test's -cpuprofile and -memprofile profile
// a real run. scripts/profile.sh drives it; it is built only with the
// "profile" tag. (The variables do not start with KPRODUCE_: TestMain
// clears those, to isolate the tests from the machine.)
func TestProfileRun(t *testing.T) {
	f, err := os.Open(os.Getenv("PROFILE_RUN_INPUT"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	args := strings.Fields(os.Getenv("PROFILE_RUN_ARGS"))
	if code := cli.Execute(context.Background(), args, cmdutil.Streams{In: f, Out: io.Discard, Err: os.Stderr}); code != cmdutil.ExitOK {
		t.Fatalf("exit status %d", code)
	}
}
