// Package saslfront is a SASL front for an in-process Kafka cluster
// (franz-go's kfake) in tests: it sits at the cluster's listener
// (kfake.ListenFn(front.Listen)), authenticates every connection itself
// through pluggable server-side mechanisms, and passes every other request
// through to the cluster. It exists because kfake serves only PLAIN and
// SCRAM: with the front, a test can run a client against OAUTHBEARER
// (JWT validated against a JWKS), AWS_MSK_IAM (SigV4 verified with known
// credentials) or any mechanism added later, with session lifetimes and
// re-authentication (KIP-368) enforced as a broker does.
//
// What the front does on each connection:
//   - ApiVersions is passed to the cluster and its answer amended: the
//     front adds SaslHandshake v0-v1 and SaslAuthenticate v0-v2.
//   - SaslHandshake and SaslAuthenticate are answered by the front. The
//     handshake picks a Mechanism by name (UNSUPPORTED_SASL_MECHANISM lists
//     the enabled ones); each SaslAuthenticate feeds the client's bytes to
//     the mechanism's Exchange. An Exchange error becomes
//     SASL_AUTHENTICATION_FAILED (58) with the error's text as the
//     message, and the connection is closed once that answer is written,
//     as a broker does. After a v0 handshake the exchange is framed raw, as
//     in Kafka before SaslAuthenticate existed.
//   - Any other request before authentication closes the connection.
//     Afterwards it is passed through, bytes unchanged, and the cluster's
//     answers are returned in request order.
//   - Session lifetime: with Config.SessionLifetime, or when the exchange
//     reports its credential's expiry (Expirer), the final
//     SaslAuthenticate (v1+) carries session_lifetime_ms = the smaller of
//     the two, and a request other than a re-authentication received after
//     the session ended closes the connection, as Kafka's SocketServer
//     does; a SaslHandshake received after it also does (Kafka checks the
//     expiry before it looks at the request). A new SaslHandshake on an
//     authenticated connection whose session has a lifetime starts a
//     re-authentication (KIP-368); the principal (Principal) must not
//     change.
//   - Strictness beyond a broker: a SaslHandshake that starts a
//     re-authentication while answers to the connection's earlier requests
//     are still owed, or a request other than SaslAuthenticate in the
//     middle of a (re-)authentication, closes the connection and is
//     recorded as a violation (ConnStats.Violation): a client must not
//     interleave its SASL exchange with other requests.
//
// Every connection is counted (Front.Connections): authentications,
// re-authentications, failures, and whether and why the front closed it.
//
// # Adding a mechanism
//
// A mechanism is a value implementing Mechanism, usually in a file of its
// own (plain.go, scram.go, oauthbearer.go and awsiam.go are examples):
//
//	type Mechanism interface {
//		Name() string            // as the client names it in SaslHandshake
//		Start(ConnInfo) Exchange // one authentication of one connection
//	}
//	type Exchange interface {
//		Step(clientMsg []byte) (serverMsg []byte, done bool, err error)
//	}
//
// Start is called at each SaslHandshake naming the mechanism (ConnInfo
// says whether it is a re-authentication, and gives the addresses and the
// time). Step gets each client message in turn and returns the answer;
// done means the client is authenticated once the answer is sent. An error
// fails the authentication (error 58, its text as the message). An
// Exchange may also implement Principal (the identity authenticated, kept
// across re-authentications) and Expirer (when its credential expires,
// which caps the session). Pass the mechanism in Config.Mechanisms; nothing
// else in the package changes. A GSSAPI mechanism, for instance, would
// wrap gokrb5's service-side acceptor in a Step that consumes the client's
// AP-REQ, answers with the AP-REP, then runs the RFC 4752 security layer
// negotiation.
//
// The front is test support: it trusts the cluster behind it, keeps no
// limits but a frame size, and is meant for loopback addresses.
package saslfront
