package accumulator

import "time"

// Ready returns the nodes that lead a partition with a sendable head batch,
// the delay until a batch that is not sendable yet may become so, and the
// topics with data in a partition whose leader is unknown (Kafka's
// RecordAccumulator.ready).
//
// A head batch is sendable when it is not backing off after a retry and
// any of these holds: the deque has more than one batch or the batch is
// full; it waited at least the linger (counted from creation or the last
// retry); appenders wait for memory; the accumulator is closed; a flush is
// in progress. Muted partitions are skipped, and so are heads a
// compression worker has not finished (its signal wakes the sender).
func (a *Accumulator) Ready(cluster Cluster, now time.Time) ReadyCheckResult {
	res := ReadyCheckResult{
		ReadyNodes:          make(map[int32]struct{}),
		NextReadyCheckDelay: NoReadyCheck,
		UnknownLeaderTopics: make(map[string]struct{}),
	}
	exhausted := a.pool.queued() > 0
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, dq := range a.order {
		first := dq.first()
		if first == nil {
			continue
		}
		leader, ok := cluster.LeaderFor(dq.tp.Topic, dq.tp.Partition)
		if !ok {
			res.UnknownLeaderTopics[dq.tp.Topic] = struct{}{}
			continue
		}
		if _, ready := res.ReadyNodes[leader]; ready {
			continue
		}
		if _, muted := a.muted[dq.tp]; muted {
			continue
		}
		if first.compress == compressQueued || first.compress == compressRunning {
			continue // its worker signals when it is done
		}
		sendable, wait := a.headReady(dq, first, exhausted, now)
		if sendable {
			res.ReadyNodes[leader] = struct{}{}
		} else {
			res.NextReadyCheckDelay = min(res.NextReadyCheckDelay, wait)
		}
	}
	return res
}

// headReady decides whether the head batch of dq is sendable, and if not,
// how long until it may be. a.mu must be held.
func (a *Accumulator) headReady(dq *deque, first *Batch, exhausted bool, now time.Time) (bool, time.Duration) {
	waited := now.Sub(first.lastAttemptAt)
	backingOff := first.backingOff(now)
	timeToWait := a.cfg.Linger
	if backingOff {
		timeToWait = first.backoff
	}
	full := dq.len() > 1 || first.isFull(a.limit)
	expired := waited >= timeToWait
	sendable := full || expired || exhausted || a.closed || a.flushes > 0
	if sendable && !backingOff {
		return true, 0
	}
	return false, max(timeToWait-waited, 0)
}

// backingOff reports whether a retried batch is still in its backoff.
func (b *Batch) backingOff(now time.Time) bool {
	return b.attempts > 0 && now.Sub(b.lastAttemptAt) < b.backoff
}

// MutePartition keeps tp's batches from being reported ready or drained
// until UnmutePartition (Kafka mutes a partition with a request in flight
// to keep order when only one request per partition may be in flight).
func (a *Accumulator) MutePartition(tp TopicPartition) {
	a.mu.Lock()
	a.muted[tp] = struct{}{}
	a.mu.Unlock()
}

// UnmutePartition undoes MutePartition.
func (a *Accumulator) UnmutePartition(tp TopicPartition) {
	a.mu.Lock()
	delete(a.muted, tp)
	a.mu.Unlock()
}
