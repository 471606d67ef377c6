// Command kproduce produces records to Kafka from stdin or files, like
// kcat -P or kafka-console-producer, with one delivery report per record.
//
// This package is only the process: signals (the first SIGINT or SIGTERM
// ends reading and bounds the flush by --close-timeout, a second exits at
// once), SIGPIPE (a closed stdout is an error to report, not a death) and
// the exit status. The command line is internal/cli and the packages
// below it; the producer is pkg/sender.
//
// The tests here drive the whole command, in-process or as a built
// binary, against real brokers (kfake, fake peers speaking the protocol)
// and read the records back: end to end, faults, peers, signals and bad
// input.
package main
