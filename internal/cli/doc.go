// Package cli assembles kproduce's command line: the produce command at
// the root (internal/cli/producecmd), the subcommands (metadatacmd,
// checkcmd), completion and the generated reference pages. Execute runs
// it and returns the exit status; only main exits.
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
