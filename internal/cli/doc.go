// Package cli assembles kproduce's command line: the produce command at
// the root (internal/cli/producecmd), the subcommands (metadatacmd,
// checkcmd, configcmd, versioncmd) and completion. Execute runs it and
// returns the exit status; only main exits. The reference pages are
// generated from the same tree by internal/cli/docgen, which only the
// generator and its test import: the binary links no doc generator.
//
// The packages below import one way:
//
//	cli -> producecmd, checkcmd, metadatacmd
//	    -> config (options, viper), input, report, cmdutil
//	    -> config/javaprops, tlsconf, escape
//
// and the commands and config use the library (pkg/sender, pkg/admin,
// pkg/accumulator, pkg/network, pkg/protocol). input, report, tlsconf and
// escape know nothing of flags, viper or config files.
package cli
