package accumulator

import "time"

// Drain takes, for each node, at most one batch per partition led by that
// node, from the head of the partition's deque, until the request would
// exceed maxRequestSize (the first batch is always taken even if larger).
// The starting partition rotates per node between calls: after a full
// round it moves on by one, and a partition cut off by the size limit
// starts the next round. Heads in retry backoff and muted partitions are
// skipped.
//
// For each candidate head batch Drain calls take(b) under the lock; take
// returns false to leave this partition for now (the sender stamps the
// producer state there with SetProducerState and may refuse). A nil take
// accepts all. Drained batches are closed for appends, removed from their
// deque and stamped with DrainedAt. Nodes with nothing drained are absent
// from the result.
func (a *Accumulator) Drain(cluster Cluster, nodes map[int32]struct{}, maxRequestSize int, now time.Time, take func(*Batch) bool) map[int32][]*Batch {
	if len(nodes) == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for node, parts := range a.drainParts {
		clear(parts)
		a.drainParts[node] = parts[:0]
	}
	for _, dq := range a.order {
		leader, ok := cluster.LeaderFor(dq.tp.Topic, dq.tp.Partition)
		if _, want := nodes[leader]; ok && want {
			a.drainParts[leader] = append(a.drainParts[leader], dq)
		}
	}
	var out map[int32][]*Batch
	for node := range nodes {
		batches := a.drainNode(node, a.drainParts[node], maxRequestSize, now, take)
		if len(batches) == 0 {
			continue
		}
		if out == nil {
			out = make(map[int32][]*Batch, len(nodes))
		}
		out[node] = batches
	}
	return out
}

// drainNode drains one node's partitions. a.mu must be held.
func (a *Accumulator) drainNode(node int32, parts []*deque, maxSize int, now time.Time, take func(*Batch) bool) []*Batch {
	n := len(parts)
	if n == 0 {
		return nil
	}
	start := a.drainIndex[node] % n
	next := (start + 1) % n
	var ready []*Batch
	size := 0
	for k := 0; k < n; k++ {
		i := (start + k) % n
		dq := parts[i]
		first := dq.first()
		if first == nil || first.backingOff(now) {
			continue
		}
		if _, muted := a.muted[dq.tp]; muted {
			continue
		}
		if !a.drainableLocked(first) {
			a.sealLocked(dq, first) // drained once compressed
			continue
		}
		if len(ready) > 0 && size+first.EncodedSize() > maxSize {
			next = i // it goes first next time
			break
		}
		if take != nil && !take(first) {
			continue
		}
		dq.pollFirst()
		if !first.appendsClosed {
			a.noteFillLocked(dq, len(first.buf))
		}
		first.appendsClosed = true
		first.drainedAt = now
		size += first.EncodedSize()
		ready = append(ready, first)
	}
	a.drainIndex[node] = next
	return ready
}
