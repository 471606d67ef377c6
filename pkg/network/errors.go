package network

import (
	"errors"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// Errors of the network layer, classified with errors.Is. The errors the
// Client returns wrap one of these and name the broker, e.g.
// "broker 2 (127.0.0.1:9093): disconnected: EOF".
var (
	// ErrDisconnected: the connection closed before the response arrived.
	ErrDisconnected = errors.New("disconnected")
	// ErrRequestTimedOut: no response within the request timeout; the
	// connection was closed.
	ErrRequestTimedOut = errors.New("request timed out")
	// ErrConnectionSetupTimeout: the connection (TCP and TLS) did not
	// complete within the connection setup timeout.
	ErrConnectionSetupTimeout = errors.New("connection setup timed out")
	// ErrUnsupportedVersion: the broker and kproduce share no version of
	// the API; the request was not sent.
	ErrUnsupportedVersion = errors.New("unsupported api version")
	// ErrAuthentication: SASL authentication failed; the node is not
	// retried.
	ErrAuthentication = errors.New("authentication failed")
	// ErrCorrelationMismatch: a response did not answer the oldest request
	// in flight on its connection; the connection was closed.
	ErrCorrelationMismatch = errors.New("correlation id mismatch")
	// ErrMalformedResponse: a broker's response could not be decoded. For
	// a Metadata response the failure is final: the connection is closed
	// and the broker is not used again.
	ErrMalformedResponse = errors.New("malformed response")
	// ErrNotReady: Send was called for a node that is not ready.
	ErrNotReady = errors.New("node not ready")
	// ErrClientClosed: the Client is closed.
	ErrClientClosed = errors.New("network client closed")
	// ErrNotKafka: the peer speaks another protocol (HTTP, TLS, SSH). It is
	// protocol.ErrNotKafka.
	ErrNotKafka = protocol.ErrNotKafka
)
