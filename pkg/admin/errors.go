package admin

import "errors"

// Errors of the admin client, classified with errors.Is. The errors the
// client returns wrap one of these, or the network client's final errors
// (network.ErrAuthentication, network.ErrNotKafka, ...), or the context's.
var (
	// ErrUnreachable: no broker (or not the broker asked for) answered
	// before the context ended; the error names what was tried.
	ErrUnreachable = errors.New("unreachable")
	// ErrUnknownNode: the broker asked for is not in the cluster metadata.
	ErrUnknownNode = errors.New("unknown broker")
	// ErrClosed: the client is closed.
	ErrClosed = errors.New("admin client closed")
)
