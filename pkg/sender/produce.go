package sender

import (
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// produceAttachment is carried by a Produce request to its response. It
// holds the request and the response it is decoded into, so that the
// three are recycled together (see recycleProduceAttachment).
type produceAttachment struct {
	batches []*accumulator.Batch
	next    int // where find looks first: brokers answer in the request's order
	req     protocol.ProduceRequest
	resp    protocol.ProduceResponse
}

// find returns the request's batch for a partition, or nil. Looking up
// every partition of a response in order costs one comparison each.
func (a *produceAttachment) find(topic string, partition int32) *accumulator.Batch {
	if a.next < len(a.batches) {
		if b := a.batches[a.next]; b.TopicPartition().Partition == partition && b.TopicPartition().Topic == topic {
			a.next++
			return b
		}
	}
	for i, b := range a.batches {
		if tp := b.TopicPartition(); tp.Partition == partition && tp.Topic == topic {
			a.next = i + 1
			return b
		}
	}
	return nil
}

// sendProduceRequest closes the batches (compression, CRC) and sends them to
// node in one Produce request.
func (s *sender) sendProduceRequest(node int32, batches []*accumulator.Batch, now time.Time) {
	att := s.newProduceAttachment()
	req := &att.req
	req.Acks, req.TimeoutMs = int16(s.cfg.Acks), int32(s.cfg.RequestTimeout.Milliseconds())
	if s.txn != nil {
		req.TransactionalID = &s.txn.transactionalID
	}
	sent := att.batches
	for _, b := range batches {
		if err := b.Close(s.comp); err != nil {
			s.idem.abandoned(b, true) // never sent
			s.unmute(b)
			s.finish(b, -1, -1, fmt.Errorf("encode batch: %w", err))
			continue
		}
		addToProduceRequest(req, b)
		sent = append(sent, b)
	}
	att.batches = sent
	if len(sent) == 0 {
		s.recycleProduceAttachment(att)
		return
	}
	cr := s.client.NewClientRequest(node, req, now, s.cfg.Acks != NoAck, s.cfg.RequestTimeout, att)
	if err := s.client.Send(cr, now); err != nil {
		for _, b := range sent {
			s.completeBatch(b, fmt.Errorf("%w: %w", network.ErrDisconnected, err), -1, -1, now)
		}
		return
	}
	s.inFlight.requests++
	s.stats.requestSent(len(sent), cr.Size)
	for _, b := range sent {
		s.inFlight.add(b)
	}
}

// handleResponse dispatches a completed request to its handler.
func (s *sender) handleResponse(resp *network.ClientResponse) {
	switch att := resp.Request.Attachment.(type) {
	case *produceAttachment:
		s.inFlight.requests--
		s.handleProduceResponse(resp, att)
		s.recycleProduceAttachment(att)
	case initProducerIDAttachment:
		s.handleInitProducerIDResponse(resp)
	case txnAttachment:
		s.handleTxnResponse(resp)
	}
}

// handleProduceResponse completes each batch of a Produce request.
func (s *sender) handleProduceResponse(resp *network.ClientResponse, att *produceAttachment) {
	now := resp.ReceivedAt
	if resp.Body == nil {
		err := resp.Err
		if err == nil && resp.Request.ExpectResponse {
			err = network.ErrDisconnected
		}
		for _, b := range att.batches {
			s.completeBatch(b, err, -1, -1, now) // err == nil: acks=0, done once sent
		}
		return
	}
	body := resp.Body.(*protocol.ProduceResponse)
	answered := 0
	for _, t := range body.Topics {
		for i := range t.Partitions {
			p := &t.Partitions[i]
			b := att.find(t.Name, p.Index)
			if b == nil || !s.inFlight.has(b) {
				continue
			}
			answered++
			s.completeBatch(b, partitionError(p), p.BaseOffset, p.LogAppendTimeMs, now)
		}
	}
	if answered < len(att.batches) {
		for _, b := range att.batches {
			if s.inFlight.has(b) {
				s.completeBatch(b, fmt.Errorf("%w: the produce response has no answer for this partition", protocol.ErrNetworkException), -1, -1, now)
			}
		}
	}
}

// partitionError is a partition's error with the broker's message, or nil.
func partitionError(p *protocol.ProduceResponsePartition) error {
	err := protocol.ErrorForCode(p.ErrorCode)
	if err == nil {
		return nil
	}
	if p.ErrorMessage != nil && *p.ErrorMessage != "" {
		err = fmt.Errorf("%w (broker: %s)", err, *p.ErrorMessage)
	}
	for _, re := range p.RecordErrors {
		msg := "invalid"
		if re.BatchIndexErrorMessage != nil && *re.BatchIndexErrorMessage != "" {
			msg = *re.BatchIndexErrorMessage
		}
		err = fmt.Errorf("%w (record %d of the batch: %s)", err, re.BatchIndex+1, msg)
	}
	return err
}
