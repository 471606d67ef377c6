package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

func main() {
	// A closed stdout must surface as EPIPE from Write, not kill the
	// process, so the run can stop reading and report it.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	// SIGHUP (a closed terminal, a dropped ssh session) stops a run as
	// SIGTERM does: what was read is flushed and reported, an open
	// transaction is aborted.
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-sigs
		cancel() // the first signal: stop reading, flush within --close-timeout
		<-sigs
		os.Exit(cmdutil.ExitInterrupted) // the second: at once
	}()
	os.Exit(cli.Execute(ctx, os.Args[1:], cmdutil.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
