//go:build kprofile

package main

import (
	"context"
	"io"
	"os"
	"testing"
)

func TestProfileT1(t *testing.T) {
	f, err := os.Open(os.Getenv("KP_INPUT"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	args := []string{"-b", os.Getenv("KP_BROKER"), "-t", "bench1", "-o", os.Getenv("KP_OUTPUT")}
	if extra := os.Getenv("KP_ARGS"); extra != "" {
		args = append(args, extra)
	}
	code := execute(context.Background(), args, Streams{In: f, Out: io.Discard, Err: os.Stderr})
	if code != 0 {
		t.Fatal(code)
	}
}
