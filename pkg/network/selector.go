package network

import (
	"fmt"
	"time"
)

// ConnID identifies one connection attempt. The Client takes a fresh id
// for every attempt, so events of an old connection to a node are never
// mistaken for events of its new one.
type ConnID uint64

// EventKind is what happened on a connection.
type EventKind int8

// The event kinds a Selector reports.
const (
	// EventConnected: the connection (TCP, and TLS when configured) is
	// established and ready for requests.
	EventConnected EventKind = iota + 1
	// EventSendCompleted: the oldest frame queued with Send is completely
	// written. Sends complete in the order they were queued. The response
	// to a request may be reported before its send completion (a
	// connection's reader and writer run independently).
	EventSendCompleted
	// EventReceived: a complete response frame arrived; Payload holds it
	// without the size prefix.
	EventReceived
	// EventDisconnected: the connection failed or was closed by the peer;
	// Err says why (dial error, EOF, frame error, TLS error...). It is the
	// last event of the connection.
	EventDisconnected
)

// String is the kind's name.
func (k EventKind) String() string {
	switch k {
	case EventConnected:
		return "connected"
	case EventSendCompleted:
		return "send completed"
	case EventReceived:
		return "received"
	case EventDisconnected:
		return "disconnected"
	}
	return fmt.Sprintf("EventKind(%d)", int8(k))
}

// Event is one thing that happened on a connection.
type Event struct {
	Kind EventKind
	Conn ConnID
	// Payload is the received frame without its size prefix
	// (EventReceived only). It belongs to the receiver.
	Payload []byte
	// Err is why the connection ended (EventDisconnected only); nil means
	// an orderly close.
	Err error
}

// Selector is the I/O seam of the Client, after Kafka's Selectable. All
// methods but Wakeup are called from the Client's goroutine. Implementations:
// SocketSelector (real sockets) and networktest.MockSelector (tests step the
// Client by hand).
type Selector interface {
	// Connect starts connecting conn to node, asynchronously: an
	// EventConnected or EventDisconnected for conn follows. timeout bounds
	// the whole setup (dial and TLS handshake).
	Connect(conn ConnID, node Node, timeout time.Duration)
	// Send queues a frame (a list of slices written with one vectored
	// write) on conn; an EventSendCompleted (or EventDisconnected) follows.
	// Frames are written in the order queued. The slices must not change
	// until the send completes or the connection is closed.
	Send(conn ConnID, frame [][]byte)
	// Close drops conn. No event for conn is reported after Close returns,
	// and the selector no longer reads the frames queued on it.
	Close(conn ConnID)
	// Poll waits up to timeout for at least one event (0: does not wait)
	// and appends all available events to dst.
	Poll(timeout time.Duration, dst []Event) []Event
	// Wakeup makes a blocked Poll, or the next one, return early. Safe from
	// any goroutine.
	Wakeup()
	// CloseAll closes every connection.
	CloseAll()
}
