package javaprops

import "errors"

// ErrBadValue is wrapped by every error about a value that does not parse.
var ErrBadValue = errors.New("invalid value")
