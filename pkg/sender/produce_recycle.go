package sender

import (
	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// maxFreeProduceRequests bounds the Produce requests kept for reuse: more
// than are in flight to a few brokers at once.
const maxFreeProduceRequests = 32

// newProduceAttachment returns an empty attachment with its request and
// the response it is decoded into, recycled with their lists' memory when
// one is free (with many partitions, a request and its response list
// hundreds of partitions each).
func (s *sender) newProduceAttachment() *produceAttachment {
	if n := len(s.freeProduce); n > 0 {
		a := s.freeProduce[n-1]
		s.freeProduce[n-1] = nil
		s.freeProduce = s.freeProduce[:n-1]
		return a
	}
	a := new(produceAttachment)
	a.req.Response = &a.resp
	return a
}

// recycleProduceAttachment keeps a's memory for a later request, once the
// response was handled: the network client dropped the request when it
// completed (its frame was encoded when it was sent), and the response's
// content was copied out (offsets, errors), so nothing refers to them.
func (s *sender) recycleProduceAttachment(a *produceAttachment) {
	if len(s.freeProduce) >= maxFreeProduceRequests {
		return
	}
	clear(a.batches)
	a.batches, a.next = a.batches[:0], 0
	for i := range a.req.Topics {
		t := &a.req.Topics[i]
		clear(t.Partitions)
		t.Name, t.Partitions = "", t.Partitions[:0]
	}
	a.req.Topics, a.req.TransactionalID = a.req.Topics[:0], nil
	s.freeProduce = append(s.freeProduce, a)
}

// addToProduceRequest adds a closed batch to the request, grouping by
// topic, in the memory a recycled request has.
func addToProduceRequest(req *protocol.ProduceRequest, b *accumulator.Batch) {
	tp := b.TopicPartition()
	part := protocol.ProduceRequestPartition{Index: tp.Partition, Records: b.Encoded()}
	for i := range req.Topics {
		if req.Topics[i].Name == tp.Topic {
			req.Topics[i].Partitions = append(req.Topics[i].Partitions, part)
			return
		}
	}
	if n := len(req.Topics); n < cap(req.Topics) {
		req.Topics = req.Topics[:n+1]
		t := &req.Topics[n]
		t.Name, t.Partitions = tp.Topic, append(t.Partitions[:0], part)
		return
	}
	req.Topics = append(req.Topics, protocol.ProduceRequestTopic{Name: tp.Topic, Partitions: []protocol.ProduceRequestPartition{part}})
}
