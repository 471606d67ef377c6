package network

// SASLMechanism is a SASL mechanism (PLAIN, SCRAM-SHA-256...) the Client
// authenticates with after the API versions are known: a SaslHandshake
// naming the mechanism, then SaslAuthenticate rounds driven by a session.
type SASLMechanism interface {
	// Name is the mechanism's name as sent in SaslHandshake.
	Name() string
	// NewSession starts an authentication with node.
	NewSession(node Node) (SASLSession, error)
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
