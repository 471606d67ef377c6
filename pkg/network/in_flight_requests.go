package network

import (
	"slices"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// requestKind tells who consumes a request's response.
type requestKind int8

const (
	kindExternal         requestKind = iota // returned by Poll
	kindApiVersions                         // connection setup
	kindSaslHandshake                       // connection setup
	kindSaslAuthenticate                    // connection setup
	kindMetadata                            // the metadata updater
)

// inFlightRequest is a request written (or being written) to a connection
// and not yet completed.
type inFlightRequest struct {
	req      *ClientRequest
	kind     requestKind
	sendTime time.Time
	sent     bool             // completely written to the socket
	w        *protocol.Writer // holds the frame until the send completes
	// metadataVersion is the Metadata request version a metadata request
	// answers (kindMetadata only).
	metadataVersion int
}

// deadline is when the request times out.
func (r *inFlightRequest) deadline() time.Time { return r.sendTime.Add(r.req.Timeout) }

// inFlightRequests is Kafka's InFlightRequests: per node, the requests sent
// and not yet answered, oldest first.
type inFlightRequests struct {
	maxPerConnection int
	byNode           map[int32][]*inFlightRequest
	total            int
}

func newInFlightRequests(maxPerConnection int) *inFlightRequests {
	return &inFlightRequests{maxPerConnection: maxPerConnection, byNode: make(map[int32][]*inFlightRequest)}
}

// add appends r as the newest request of node.
func (f *inFlightRequests) add(node int32, r *inFlightRequest) {
	f.byNode[node] = append(f.byNode[node], r)
	f.total++
}

// canSendMore is Kafka's rule: nothing in flight, or the newest request
// completely written and fewer than the maximum in flight.
func (f *inFlightRequests) canSendMore(node int32) bool {
	q := f.byNode[node]
	return len(q) == 0 || (q[len(q)-1].sent && len(q) < f.maxPerConnection)
}

// oldest returns the oldest request of node, or nil.
func (f *inFlightRequests) oldest(node int32) *inFlightRequest {
	if q := f.byNode[node]; len(q) > 0 {
		return q[0]
	}
	return nil
}

// completeOldest removes and returns the oldest request of node, or nil.
func (f *inFlightRequests) completeOldest(node int32) *inFlightRequest {
	q := f.byNode[node]
	if len(q) == 0 {
		return nil
	}
	r := q[0]
	copy(q, q[1:])
	q[len(q)-1] = nil
	f.byNode[node] = q[:len(q)-1]
	f.total--
	return r
}

// markNextSent marks the oldest request of node not yet completely written
// as written and returns it (sends complete in order), or nil.
func (f *inFlightRequests) markNextSent(node int32) *inFlightRequest {
	for _, r := range f.byNode[node] {
		if !r.sent {
			r.sent = true
			return r
		}
	}
	return nil
}

// remove takes r out of node's requests, wherever it is.
func (f *inFlightRequests) remove(node int32, r *inFlightRequest) {
	q := f.byNode[node]
	if i := slices.Index(q, r); i >= 0 {
		f.byNode[node] = slices.Delete(q, i, i+1)
		f.total--
	}
}

// clearAll removes and returns all requests of node, oldest first.
func (f *inFlightRequests) clearAll(node int32) []*inFlightRequest {
	q := f.byNode[node]
	delete(f.byNode, node)
	f.total -= len(q)
	return q
}

func (f *inFlightRequests) count(node int32) int { return len(f.byNode[node]) }

func (f *inFlightRequests) isEmpty() bool { return f.total == 0 }

// nodesWithTimedOutRequests appends to dst the nodes with a request in
// flight for longer than its timeout.
func (f *inFlightRequests) nodesWithTimedOutRequests(dst []int32, now time.Time) []int32 {
	for node, q := range f.byNode {
		for _, r := range q {
			if !now.Before(r.deadline()) {
				dst = append(dst, node)
				break
			}
		}
	}
	return dst
}

// nextDeadline is the earliest request deadline, and false when nothing is
// in flight.
func (f *inFlightRequests) nextDeadline() (time.Time, bool) {
	var earliest time.Time
	found := false
	for _, q := range f.byNode {
		for _, r := range q {
			if d := r.deadline(); !found || d.Before(earliest) {
				earliest, found = d, true
			}
		}
	}
	return earliest, found
}
