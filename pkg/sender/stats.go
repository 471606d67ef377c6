package sender

import (
	"sync/atomic"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// Stats counts what the producer did so far. Every attempt counts: a batch
// sent twice (a retry) counts twice in Batches and in the request sizes.
type Stats struct {
	// Delivered and Failed count the records whose outcome is known.
	Delivered, Failed int64
	// Requests is the number of Produce requests written to a connection.
	Requests int64
	// Batches is the number of record batches in those requests.
	Batches int64
	// WireBytes is the size of those requests as written: size prefix,
	// request header and body, after compression.
	WireBytes int64
	// Retries is the number of times a batch was put back for another
	// attempt after a retriable error.
	Retries int64
	// Splits is the number of batches split in smaller ones after the
	// broker refused them as too large.
	Splits int64
	// Reauthentications is the number of SASL re-authentications (KIP-368)
	// of the producer's connections.
	Reauthentications int64
}

// senderStats are the Sender's counters. Only the Sender goroutine adds
// to them, once per request or batch event (never per record); any
// goroutine may read them.
type senderStats struct {
	requests, batches, wireBytes, retries, splits atomic.Int64
}

// requestSent counts a Produce request of size bytes holding batches; a
// request of size 0 was not written (see network.ClientRequest.Size) and
// does not count.
func (s *senderStats) requestSent(batches, size int) {
	if size == 0 {
		return
	}
	s.requests.Add(1)
	s.batches.Add(int64(batches))
	s.wireBytes.Add(int64(size))
}

// snapshot returns the counters' current values, with the records'
// outcomes counted by acc.
func (s *senderStats) snapshot(acc *accumulator.Accumulator) Stats {
	delivered, failed := acc.Outcomes()
	return Stats{
		Delivered: delivered,
		Failed:    failed,
		Requests:  s.requests.Load(),
		Batches:   s.batches.Load(),
		WireBytes: s.wireBytes.Load(),
		Retries:   s.retries.Load(),
		Splits:    s.splits.Load(),
	}
}

// Stats returns what the producer has done so far. After Close returned
// it is final.
func (p *Producer) Stats() Stats {
	if p.sender == nil {
		return Stats{} // a dry run without a cluster
	}
	s := p.sender.stats.snapshot(p.acc)
	s.Reauthentications = p.client.Reauthentications()
	return s
}
