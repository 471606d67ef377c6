package schema

import (
	"errors"
	"fmt"
)

// ErrMismatch is wrapped by the error of a record that does not fit its
// schema.
var ErrMismatch = errors.New("does not fit the schema")

// ErrSyntax is wrapped by the error of a record that is not JSON.
var ErrSyntax = errors.New("not JSON")

// ErrSchema is wrapped by the errors of a schema that cannot be read or
// compiled, or of a Spec that cannot be used (a usage error).
var ErrSchema = errors.New("bad schema")

// FieldError is the error of one record: where in the record (Path, as
// .customer.id or .items[2], "" for the record itself) and what is wrong.
type FieldError struct {
	// Path is the field's path in the record, "" for the whole record.
	Path string
	// Msg says what is wrong ("expected long, got string \"x\"").
	Msg string
	// Err is ErrMismatch or ErrSyntax.
	Err error
	// steps are the path's steps, innermost first, while the error goes
	// up through the encoder.
	steps []pathElem
}

// Error returns "field PATH: MSG", or MSG for the record itself.
func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return "field " + e.Path + ": " + e.Msg
}

// Unwrap returns ErrMismatch or ErrSyntax.
func (e *FieldError) Unwrap() error { return e.Err }

// schemaError is an error that is ErrSchema, with a message of its own.
type schemaError struct{ err error }

// Error returns the message.
func (e *schemaError) Error() string { return e.err.Error() }

// Is makes the error ErrSchema.
func (e *schemaError) Is(target error) bool { return target == ErrSchema }

// Unwrap returns the error it was made from.
func (e *schemaError) Unwrap() error { return errors.Unwrap(e.err) }

// schemaErrorf returns an error that is ErrSchema (errors.Is), with the
// message format says.
func schemaErrorf(format string, args ...any) error {
	return &schemaError{err: fmt.Errorf(format, args...)}
}
