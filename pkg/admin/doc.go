// Package admin is a small synchronous request client for the kproduce
// subcommands that inspect or prepare a cluster (metadata, check): each
// call connects as needed, sends one request and waits for its answer.
//
// It drives a network.Client (Kafka's NetworkClient, single owner) on the
// calling goroutine, one call at a time: a mutex serialises the calls, and
// a context's end wakes the blocked Poll. Connection setup (ApiVersions,
// SASL) is the network client's; this package only decides when to give
// up:
//   - before the cluster has answered, the network client's bootstrap error
//     (every address failed for good, or the bootstrap timeout passed) ends
//     the call at once; one bootstrap address failing for good does not;
//   - a final failure of a broker (authentication, TLS, a peer that is not
//     Kafka) ends the call at once with that broker's error;
//   - an unreachable broker, a lost connection or a request timeout is
//     retried (another broker when any will do) until the context ends,
//     and the error then names every broker tried and why it failed;
//   - a request the broker cannot take (no common version) or a response
//     that does not decode ends the call at once.
package admin
