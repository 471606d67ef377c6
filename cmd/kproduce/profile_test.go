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
// PROFILE_INPUT with the arguments PROFILE_ARGS (space-separated), so that
// go test's -cpuprofile and -memprofile profile a real run.
// scripts/profile.sh drives it; it is built only with the "profile" tag.
// (Not KPRODUCE_ variables: TestMain clears those before the tests run.)
func TestProfileRun(t *testing.T) {
	f, err := os.Open(os.Getenv("PROFILE_INPUT"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	args := strings.Fields(os.Getenv("PROFILE_ARGS"))
	if code := cli.Execute(context.Background(), args, cmdutil.Streams{In: f, Out: io.Discard, Err: os.Stderr}); code != cmdutil.ExitOK {
		t.Fatalf("exit status %d", code)
	}
}
