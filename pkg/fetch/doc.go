// Package fetch turns the record batches of one fetched partition into the
// records a consumer sees (Kafka's CompletedFetch): batches decoded and
// checked (CRC, every codec), records before the fetch offset dropped,
// control batches (transaction markers) dropped, and under read_committed
// the records of aborted transactions dropped using the response's list
// of aborted transactions.
//
// It does no I/O; pkg/fetcher sends the Fetch requests and hands each
// partition's data here. It lives apart from pkg/protocol, which stays the
// wire format: what to keep of a partition's batches is the consumer's
// logic, not the format's (in Kafka it is clients/consumer/internals, not
// common/record).
//
// Invariants:
//   - Records come out in offset order, each at or after the fetch offset,
//     and NextOffset never goes backwards: it is the offset after the last
//     complete batch read (control and aborted batches included), or the
//     fetch offset when none was complete.
//   - Under read_committed a transactional batch of producer P is dropped
//     when an aborted transaction of P starts at or before the batch's last
//     offset and P's abort marker has not been passed yet; the abort marker
//     of P ends it. This is Kafka's rule, and it relies on the broker
//     returning only data below the last stable offset.
//   - The last batch may be cut short by the fetch size limits: it is left
//     for the next fetch. Data with no complete batch at all is
//     ErrNoProgress (brokers return at least one whole batch, KIP-74), so
//     a caller never loops on a fetch that cannot advance.
//   - Keys, values and header values alias the response's bytes (or the
//     decompressed copy of a compressed batch); nothing is copied per
//     record.
package fetch
