package main

import (
	"errors"
	"fmt"
)

// usageError is an error in what the user asked for, found before anything
// is sent: a bad flag, config file or input file. The command maps it to
// exit status 2.
type usageError struct {
	err error
}

// Error returns the message of the wrapped error.
func (e *usageError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf formats an error (wrapping with %w works) and marks it as a
// usage error.
func usageErrorf(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// asUsageError marks err as a usage error; nil stays nil.
func asUsageError(err error) error {
	if err == nil || isUsageError(err) {
		return err
	}
	return &usageError{err: err}
}

// isUsageError reports whether err, or an error it wraps, is a usage error.
func isUsageError(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}
