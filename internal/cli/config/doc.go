// Package config resolves kproduce's options: the flags of the produce
// command and its subcommands, the environment, the config file and the
// properties of other tools, into validated Options and a Connection, and
// maps them onto the producer's and the admin client's configurations
// (clients.go is the one place that does).
//
// Invariants:
//
//   - One precedence, from the top: an option's own flag; a property on the
//     command line (-X, --producer-property, another tool's flag such as
//     --timeout or kcat's -q), which counts as the flag it maps to; the
//     KPRODUCE_* environment; rpk's RPK_* environment, read as the -X names
//     it stands for; the config file (its profile over its top level);
//     the default. origin says, for every option, which of them gave it.
//   - Every property name, Java's, librdkafka's or rpk's, is one row of
//     javaprops.Table; the flags, -X help and the tests follow the table.
//   - The Java client's rules between options (idempotence with acks and
//     retries, the request timeout within the delivery timeout) are applied
//     after all layers are read, in options_rules.go; kproduce config shows
//     a value they changed as derived, with its cause.
//   - Every problem is collected before returning: a command line with
//     several mistakes is one usage error naming each of them.
//   - Secrets (passwords) are never printed: kproduce config and the logs
//     show them redacted.
package config
