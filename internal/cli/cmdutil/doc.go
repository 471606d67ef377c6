// Package cmdutil holds what every kproduce command shares: the standard
// streams, the exit statuses, usage errors and how errors are printed, the
// logger, and the skeleton of a subcommand. It imports no other package of
// kproduce, so that any command can use it.
package cmdutil
