package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// UsageError is an error in what the user asked for, found before anything
// is sent: a bad flag, config or input file. It means exit status 2.
type UsageError struct {
	Err error
}

// Error returns the message of the wrapped error.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *UsageError) Unwrap() error { return e.Err }

// UsageErrorf formats an error (wrapping with %w works) and marks it as a
// usage error.
func UsageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// AsUsageError marks err as a usage error; nil stays nil.
func AsUsageError(err error) error {
	if err == nil || IsUsageError(err) {
		return err
	}
	return &UsageError{Err: err}
}

// IsUsageError reports whether err, or an error it wraps, is a usage error.
func IsUsageError(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// PrintError prints every line of err as "error: ..." and, for a usage
// error, a hint to kproduce --help.
func PrintError(w io.Writer, err error) { PrintErrorFor(w, err, "kproduce") }

// PrintErrorFor is PrintError for a usage error of command (its path, such
// as "kproduce check").
func PrintErrorFor(w io.Writer, err error, command string) {
	var b strings.Builder
	for _, line := range strings.Split(err.Error(), "\n") {
		b.WriteString("error: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if IsUsageError(err) {
		b.WriteString("Run '" + command + " --help' for usage.\n")
	}
	_, _ = fmt.Fprint(w, b.String())
}
