package protocol

import "fmt"

// Error is a Kafka error code. Values are shared: compare with errors.Is
// against the Err* variables, never by string.
type Error struct {
	Code            int16
	Name            string // Kafka's name, e.g. NOT_LEADER_OR_FOLLOWER
	Retriable       bool   // a later attempt may succeed
	InvalidMetadata bool   // the client's metadata is stale: refresh before retrying
	Description     string // a short explanation for users; may be empty
}

// Error returns the Kafka name and, when known, a short explanation.
func (e *Error) Error() string {
	if e.Description == "" {
		return e.Name
	}
	return e.Name + ": " + e.Description
}

// ErrorForCode returns the error for a Kafka error code: nil for 0, the
// shared value for a known code, and a new non-retriable Error for an
// unknown one.
func ErrorForCode(code int16) error {
	if code == 0 {
		return nil
	}
	for _, e := range errorTable {
		if e.Code == code {
			return e
		}
	}
	return &Error{Code: code, Name: fmt.Sprintf("UNKNOWN_ERROR_CODE_%d", code)}
}
