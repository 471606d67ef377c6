package network

import (
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// ClientRequest is a request to one node (Kafka's ClientRequest). Create it
// with Client.NewClientRequest, which assigns the correlation id.
type ClientRequest struct {
	// Destination is the node id.
	Destination int32
	// CorrelationID matches the response to the request.
	CorrelationID int32
	// Body is the request message.
	Body protocol.Request
	// Version is the API version, chosen by Client.Send from the versions
	// the broker and kproduce share.
	Version int16
	// ExpectResponse is false for a request the broker does not answer
	// (Produce with acks=0): it completes once written.
	ExpectResponse bool
	// CreatedAt is when the request was created.
	CreatedAt time.Time
	// Timeout is the request timeout, counted from the send.
	Timeout time.Duration
	// Attachment is the caller's data, handed back in the response.
	Attachment any
	// Size is the request's size in bytes as written (size prefix
	// included), set by Client.Send; 0 when it was not written.
	Size int
}

// ClientResponse is the outcome of a ClientRequest (Kafka's
// ClientResponse). Exactly one ClientResponse is returned for every
// request passed to Client.Send.
type ClientResponse struct {
	Request *ClientRequest
	// Body is the decoded response, nil unless a response was received and
	// decoded (always nil when the request expects no response).
	Body protocol.Response
	// ReceivedAt is when the request completed.
	ReceivedAt time.Time
	// Disconnected is true when the connection closed (or was closed)
	// before the response arrived.
	Disconnected bool
	// TimedOut is true when the request timed out; Disconnected is then
	// true too, since a timeout closes the connection.
	TimedOut bool
	// Err says why Body is nil (wrapping ErrDisconnected,
	// ErrRequestTimedOut or ErrUnsupportedVersion) or is the decode error
	// of a malformed response.
	Err error
}

// RequestLatency is the time from the request's creation to its
// completion.
func (r *ClientResponse) RequestLatency() time.Duration { return r.ReceivedAt.Sub(r.Request.CreatedAt) }
