// Package docgen writes kproduce's reference pages, Markdown and man
// pages, from the command tree that internal/cli builds. Only the
// generator (scripts/gendocs, run by go generate ./internal/cli) and the
// test that keeps docs/ current import it, so the kproduce binary links
// neither cobra's doc generator nor the Markdown renderer below it.
//
// Invariants:
//   - The pages carry no generation date and a fixed man page date, so
//     they change only when the commands do.
//   - GenerateDocs replaces the files it writes and leaves others alone;
//     the test reports pages that are no longer generated.
package docgen
