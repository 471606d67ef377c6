package network

import "errors"

// SASLMechanism is a SASL mechanism (PLAIN, SCRAM-SHA-256, OAUTHBEARER...)
// the Client authenticates with after the API versions are known: a
// SaslHandshake naming the mechanism, then SaslAuthenticate rounds driven
// by a session. A new session starts at every authentication, the
// re-authentications of a connection (KIP-368) included, so each gets
// fresh credentials (a token, a signature).
//
// NewSession runs on the goroutine that drives the Client: it must not
// block on the outside world. A mechanism whose credentials must be
// fetched (an OAuth token from an endpoint) implements SASLPreparer and
// fetches them on its own; one that needs an exchange of its own for each
// broker (GSSAPI's service ticket) implements SASLSessionStarter.
type SASLMechanism interface {
	// Name is the mechanism's name as sent in SaslHandshake.
	Name() string
	// NewSession starts an authentication with node. An error wrapping
	// ErrSASLPending means the credentials are not ready yet: the
	// connection is closed and retried as after a disconnection; any other
	// error fails the authentication.
	NewSession(node Node) (SASLSession, error)
}

// SASLSessionStarter is implemented by a mechanism whose session start
// needs an exchange with the outside world for each broker (GSSAPI asks
// the KDC for the broker's service ticket). The Client calls StartSession
// instead of NewSession; it must not block. While the exchange runs in
// the background, its error wraps ErrSASLPending, and w.Wakeup is called
// once the exchange ended: the Client keeps the connection waiting, polls
// its other connections meanwhile, and asks again when woken, until the
// connection setup timeout (then, as on any other error, the
// authentication fails).
//
// The background exchange serves only the connections waiting for it:
// when a waiting connection ends (closed, given up at its deadline, or
// its Client closed), the Client calls CancelSession, and the exchange
// stops, at once, if no other connection waits for it. CancelSession
// must not block either.
type SASLSessionStarter interface {
	StartSession(node Node, w Waker) (SASLSession, error)
	CancelSession(node Node, w Waker)
}

// SASLSession is one authentication exchange.
type SASLSession interface {
	// Step takes the broker's last challenge (nil on the first call) and
	// returns the next message to send. done is true when the exchange is
	// complete once this response (if any) is accepted; a nil response
	// with done true means the exchange is complete now. An error fails
	// the authentication.
	Step(challenge []byte) (response []byte, done bool, err error)
}

// SASLFailureExplainer is implemented by a session that can say more
// about a failed authentication than the broker's error: OAUTHBEARER adds
// the status the broker sent and what the token claims. ExplainFailure
// returns err, wrapped with that detail; it must keep secrets out.
type SASLFailureExplainer interface {
	ExplainFailure(err error) error
}

// Waker is what a SASLPreparer wakes when the credentials it prepares
// change; Wakeup is safe from any goroutine. A *Client is one.
type Waker interface {
	Wakeup()
}

// ErrSASLPending is wrapped by SASLPreparer.Prepare's error, and by
// NewSession's, while a mechanism's credentials are still being obtained.
var ErrSASLPending = errors.New("SASL credentials not ready")

// SASLPreparer is implemented by a mechanism whose credentials are
// obtained in the background (a token fetched and refreshed from an
// endpoint, cloud credentials): the Client connects only once they are
// ready, so the goroutine that drives it never waits on the outside world.
type SASLPreparer interface {
	// Prepare reports whether sessions can start now: nil when they can,
	// an error wrapping ErrSASLPending while the credentials are being
	// obtained (its text says what is awaited and the last failure), and
	// any other error when they never will (the Client then fails as after
	// an authentication failure). The first call from w starts whatever
	// background work is needed; w.Wakeup is called whenever the answer
	// may have changed. It must not block.
	Prepare(w Waker) error
	// Release tells that w no longer needs the credentials (a closed
	// Client); the background work stops once nobody needs them.
	Release(w Waker)
}
