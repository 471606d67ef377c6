// Package producecmd is kproduce itself, the produce command at the root
// of the command tree: it reads records from FILEs or stdin (package
// input), hands them to the producer (pkg/sender) a read buffer at a time,
// and prints one report per record (package report) as the producer's
// promises come back. A dry run is the same run with a producer that
// places records without sending them (sender.DryRun); --rate, --sync and
// transactions hand records over one at a time.
//
// Invariants:
//   - Every record read gets exactly one report: a failure found while
//     reading or preparing it (no topic, too large, malformed), a refusal
//     at hand-over (sender.ErrNotSent), or its promise's outcome. Records
//     not handed over because reading stopped (an interrupt, a closed
//     stdout, a fatal error) are reported as records not read, never as
//     delivered.
//   - Each record's Opaque is its input.Origin (input, source name,
//     record number, read time); reports, held transaction reports and
//     the stats read it, nothing else, and only during its promise (or its
//     report before it is handed over): the Origins of a read are reused
//     once every producer call that took its records is done
//     (sender.Producer.ProduceBatchDone).
//   - The topic of a record is chosen in one place (topicChooser), its
//     partition defaulted in one place (prepare): the real run and the dry
//     run share them.
//   - With --transactional-id, reports are held until their transaction's
//     outcome is known and printed in input order: delivered after a
//     commit, failed after an abort.
//   - The exit status is decided once, in finish, from the reporter's
//     counts, the producer's fatal error, the read errors and the
//     transaction's outcome.
package producecmd
