// Command kproduce produces records to Kafka from stdin or files, like
// kcat -P or kafka-console-producer, with one delivery report per record.
//
// This package is only the process: signals (the first SIGINT or SIGTERM
// ends reading and bounds the flush by --close-timeout, a second exits at
// once), SIGPIPE (a closed stdout is an error to report, not a death) and
// the exit status. The command line is internal/cli and the packages
// below it; the producer is pkg/sender.
//
// The tests here are those that need the built binary, a process of its
// own: signals (SIGINT, SIGTERM, SIGHUP; a second one), closed pipes, the
// exit status, peak memory on huge input, runs as another user, fake
// peers that misbehave on the wire, and --resume loads killed at chosen
// requests. Each command's behaviour is tested in-process beside it
// (internal/cli/producecmd, checkcmd, metadatacmd, configcmd, versioncmd).
package main
