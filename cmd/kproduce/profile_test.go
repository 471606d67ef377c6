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
// KPRODUCE_PROFILE_INPUT with the arguments KPRODUCE_PROFILE_ARGS
// (space-separated), so that go test's -cpuprofile and -memprofile profile
// a real run. scripts/profile.sh drives it; it is built only with the
// "profile" tag.
func TestProfileRun(t *testing.T) {
	f, err := os.Open(os.Getenv("KPRODUCE_PROFILE_INPUT"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	args := strings.Fields(os.Getenv("KPRODUCE_PROFILE_ARGS"))
	if code := cli.Execute(context.Background(), args, cmdutil.Streams{In: f, Out: io.Discard, Err: os.Stderr}); code != cmdutil.ExitOK {
		t.Fatalf("exit status %d", code)
	}
}
