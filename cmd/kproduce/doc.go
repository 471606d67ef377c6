// Command kproduce produces records to Kafka from stdin or files, like
// kcat -P or kafka-console-producer, with one delivery report per record.
//
// The command side (this package) resolves options, splits input into
// records and prints reports; the producer itself lives in pkg/sender.
//
// Invariants:
//   - Options are resolved once per run from a fresh viper instance:
//     flag (and -X, which counts as the flag it maps to unless that flag is
//     given too) > environment KPRODUCE_* > --config file > default. An
//     unknown YAML key is a usage error; an unknown Java property is a
//     warning. Every problem found is reported at once, as a usage error
//     (exit 2), before anything is connected or read.
//   - Every input file is opened before the first record is produced; a named
//     pipe is only checked for read permission then, and opened on its first
//     read, because opening a pipe waits for a writer.
//   - Input readers never hold more than one record: a record larger than
//     --max-record-bytes is counted and discarded up to its delimiter, so
//     memory stays bounded by the limit plus the read buffer. A record
//     returned by a reader, its key, value and headers are valid only until
//     the next call to Next. Record numbers count every record of a
//     source, including skipped empty ones and failed ones.
//   - The lines reader returns a record as soon as its delimiter has been
//     read; it never waits for more input first.
//   - The reporter is the only writer of stdout. It is safe for concurrent
//     use, buffers its output, and never allocates for a successful report
//     in the text, json or none formats.
//   - Secrets (passwords in Java security properties) are never logged.
//   - The subcommands metadata and check (pkg/admin underneath) resolve the
//     connection options (brokers, TLS, SASL, client id, request timeout,
//     -X, --config, log level) and the topic exactly as the root command
//     does; a config file's producer options are accepted and unused. Their
//     own options (-o, --timeout, --count, --create, ...) come from the
//     command line only, so a producer config's output or count never
//     leaks into them. --timeout bounds every wait for the cluster.
//   - While a progress bar is drawn, every other write to stderr (reports,
//     logs) goes through it, and it erases itself first: stderr lines never
//     mix with the bar. A record held back by --rate is read, for its
//     timestamp and delivery timeout, when its turn comes.
package main
