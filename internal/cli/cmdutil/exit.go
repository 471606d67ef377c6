package cmdutil

import (
	"context"
	"errors"
	"fmt"
)

// Exit statuses of every kproduce command.
const (
	ExitOK          = 0   // every record delivered, the check or the metadata ok
	ExitFailed      = 1   // some record failed, or the cluster could not be used
	ExitUsage       = 2   // bad flags, config or input files: nothing was sent
	ExitInterrupted = 130 // SIGINT, SIGTERM or SIGHUP
)

// ExitError ends a command that has already said what went wrong (its
// reports, summary and error lines are printed): only its exit status is
// left to give.
type ExitError struct {
	Code int
}

// Error names the exit status.
func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Exit returns the error a command's RunE returns for exit status code
// once it has printed everything: nil for ExitOK.
func Exit(code int) error {
	if code == ExitOK {
		return nil
	}
	return &ExitError{Code: code}
}

// ExitCode is the exit status err means: 0 for nil, an ExitError's own,
// 2 for a usage error, 130 for an interrupt (context.Canceled), else 1.
func ExitCode(err error) int {
	var e *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &e):
		return e.Code
	case IsUsageError(err):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitFailed
}

// IsReported reports whether err's command already printed everything
// (an ExitError): the caller prints nothing more.
func IsReported(err error) bool {
	var e *ExitError
	return errors.As(err, &e)
}
