// Package network is kproduce's NetworkClient: it owns the connections to
// the brokers, negotiates API versions, authenticates with SASL, keeps the
// in-flight requests of each connection, refreshes the cluster metadata and
// matches responses to requests. It follows the Apache Kafka Java client
// (NetworkClient, InFlightRequests, ClusterConnectionStates, Metadata and
// DefaultMetadataUpdater, Selector), written the Go way: all socket I/O sits
// behind the Selector interface, whose real implementation (SocketSelector)
// runs goroutines per connection and posts events that Client.Poll drains.
//
// Invariants:
//   - A Client is owned by one goroutine (the sender loop). Only Wakeup, and
//     the Metadata methods documented as such, may be called from others.
//   - Every connection attempt gets a fresh ConnID. Events are looked up by
//     ConnID, so an event of an old connection of a node is never taken for
//     one of its new connection; once Selector.Close(conn) returns, the
//     selector posts no event for conn, and EventDisconnected is the last
//     event of a connection.
//   - The requests in flight on a connection are answered in the order they
//     were sent: a response always completes the oldest in-flight request
//     of its connection, and its correlation id must be that request's; a
//     mismatch closes the connection and fails every request in flight on it,
//     and so does a frame too short to hold a correlation id
//     (ErrMalformedResponse).
//   - A response may overtake the send completion of its own request; the
//     completions still owed are counted per node, so a late completion is
//     never credited to a newer request, and a frame's buffer is reused
//     only after its own completion.
//   - A node accepts a new request only when the newest request sent to it
//     has been completely written and fewer than MaxInFlightPerConnection
//     are in flight (Kafka's InFlightRequests.canSendMore).
//   - Every request in flight completes exactly once: with a response, at
//     send completion when no response is expected (acks=0), as
//     disconnected, or as timed out. Internal requests (ApiVersions, SASL,
//     Metadata) are consumed by the Client and never returned by Poll.
//   - A node that failed authentication stays failed: the Client never
//     reconnects to it and AuthenticationError reports why. The same holds
//     for failures no retry can fix: a TLS handshake refused or not
//     trusted (ErrTLSHandshake, which includes a peer that sends no TLS
//     reply within the handshake timeout, half the connection setup
//     timeout), a peer that is not Kafka (ErrNotKafka), a Metadata
//     response that cannot be decoded (ErrMalformedResponse), two
//     connections in a row closed before any response
//     (ErrClosedBeforeResponse: a listener of the other security
//     protocol) and, while bootstrapping without SASL, two connections in a
//     row closed after ApiVersions before any other answer (a listener that
//     requires SASL). The handshake itself also ends a node for good when it
//     cannot succeed: an ApiVersions answer that cannot be read, an
//     ApiVersions error other than UNSUPPORTED_VERSION, and a broker with no
//     usable Metadata version (older than Kafka 0.11). A connection counts
//     as ready only once authenticated.
//   - Re-authentication (KIP-368): a connection whose session has a
//     lifetime (SaslAuthenticate v1+) is not ready from a random 85-95% of
//     it on (at least 1s, or half of a shorter session, before its end); once nothing is in flight on it, a new SASL exchange runs on
//     the same connection, and nothing else is sent on it until that
//     exchange completed. A SASL exchange never shares a connection with
//     another request. A connection lost during a re-authentication is an
//     ordinary disconnection, retried; a re-authentication the broker
//     refuses is an authentication failure: as in the Java client, the
//     connection is closed and the error surfaces as one
//     (AuthenticationError); the node, as any that failed to
//     authenticate, is not retried.
//   - A mechanism whose credentials come from the outside world
//     (SASLPreparer) is asked for them before every connection and every
//     re-authentication; the Client never waits for them in Poll: it
//     connects once they are ready (the preparer wakes it), and a final
//     failure of them fails every node as an authentication failure.
//     A mechanism that needs an exchange of its own for each broker
//     (SASLSessionStarter: GSSAPI asks the KDC for the broker's service
//     ticket) gets it in the background too: after the SaslHandshake the
//     connection waits, with nothing in flight, while the Client serves its
//     other connections, until the mechanism wakes it; a failure of the
//     exchange (the KDC refuses, or does not answer within the mechanism's
//     timeout) is an authentication failure, and so is a wait past the
//     connection setup timeout. The exchange serves only the connections
//     waiting for it: when one ends (closed, given up, its Client closed)
//     the Client cancels its wait (CancelSession), and the exchange stops
//     at once when no other connection waits for it. GSSAPI's
//     preparer keeps the ticket-granting ticket fresh in the background, as
//     the Java client's login thread does.
//   - Until the cluster has answered once (Reached), the Client is
//     bootstrapping: it connects to every bootstrap address at once, caps
//     each attempt at half the bootstrap timeout, tells each address's
//     first failure (Notice), and gives up with a BootstrapError naming
//     every address when all failed for good or the bootstrap timeout
//     passed, and at once when one refused to authenticate the Client
//     (the others take the same credentials): that error is told once, by
//     the BootstrapError, not by a Notice per address; the error then
//     stays. Afterwards the Client never gives up on
//     its own: a lost broker is retried, and its outage told once. An
//     authentication failure is never told by a Notice, during the
//     bootstrap or after it: the BootstrapError or AuthenticationError
//     tells it, so brokers refusing the same credentials (a
//     re-authentication refused by each) are told once.
//   - A Cluster is immutable once published; Metadata swaps snapshots
//     atomically, so Fetch never blocks and never sees a partial update.
//   - Backoffs and timeouts grow exponentially with the injected jitter and
//     never exceed their configured maximum.
package network
