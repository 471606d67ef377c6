package cli

// The reference pages under docs/ are generated from the command tree
// (internal/cli/docgen), outside the kproduce binary.
//go:generate go run ../../scripts/gendocs -out ../../docs
