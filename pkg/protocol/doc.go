// Package protocol is the Kafka wire format: primitive types, request and
// response headers, size-prefixed framing, the messages kproduce speaks
// (ApiVersions, Metadata, Produce, InitProducerId, SaslHandshake,
// SaslAuthenticate, FindCoordinator, AddPartitionsToTxn, EndTxn,
// CreateTopics, ListOffsets, Fetch), record batches v2, compression codecs
// and the Kafka error-code table.
//
// The package does no I/O and never logs. Its only goroutines are the
// compressors': a Compressor spreads a large batch's lz4 blocks or zstd
// frames over several goroutines (each call waits for its own before it
// returns). Every message has Encode(w, version) and Decode(r, version) so
// that both the client direction and the broker direction can be
// exercised in tests.
//
// Invariants:
//   - A Reader's error is sticky: after the first short or malformed read
//     every getter returns the zero value and Err reports the first failure.
//     Decoders therefore check Err once at the end rather than after each field.
//   - Lengths read from the wire are validated against the bytes remaining
//     before anything is allocated, so a hostile length cannot force a huge
//     allocation.
//   - Fields are version-gated exactly as in Kafka's message JSON schemas.
package protocol
