package fetcher

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// retryBackoff is the wait before asking a partition's leader again after
// a retriable partition error (a leader change, an offset not available
// yet).
const retryBackoff = 100 * time.Millisecond

// partitionRetry runs the attempts of a call to partition leaders: each
// attempt's retriable partition errors are retried after a backoff (and a
// metadata refresh when the error says the metadata is stale) until ctx
// ends; the call then fails with the last of them.
type partitionRetry struct {
	f       *Fetcher
	topic   string
	lastErr error // the last retriable error, for the error of a call that gives up
	refresh bool  // the next attempt refreshes the topic's metadata first
}

// leader returns the leader of partition, fetching the topic's metadata
// when it is unknown or stale. ok is false when the partition has no
// leader yet (retry). f.mu must be held.
func (r *partitionRetry) leader(ctx context.Context, partition int32) (node int32, topicID [16]byte, ok bool, err error) {
	t, known := r.f.topics[r.topic]
	if !known || r.refresh {
		if t, err = r.f.topicMetadata(ctx, r.topic); err != nil {
			return 0, topicID, false, err
		}
		r.refresh = false
	}
	if t == nil {
		return 0, topicID, false, fmt.Errorf("topic %s is missing from the metadata", r.topic)
	}
	if terr := protocol.ErrorForCode(t.ErrorCode); terr != nil {
		return 0, t.TopicID, false, r.retriable(fmt.Errorf("topic %s: %w", r.topic, terr))
	}
	for _, p := range t.Partitions {
		if p.PartitionIndex != partition {
			continue
		}
		if p.LeaderID < 0 {
			return 0, t.TopicID, false, r.retriable(fmt.Errorf("%s/%d: %w", r.topic, partition, protocol.ErrLeaderNotAvailable))
		}
		return p.LeaderID, t.TopicID, true, nil
	}
	return 0, t.TopicID, false, fmt.Errorf("topic %s has no partition %d (%d partitions)", r.topic, partition, len(t.Partitions))
}

// topicMetadata fetches the metadata of topic and keeps it; nil when the
// cluster does not list it. f.mu must be held.
func (f *Fetcher) topicMetadata(ctx context.Context, topic string) (*protocol.MetadataResponseTopic, error) {
	md, err := f.client.Metadata(ctx, []string{topic})
	if err != nil {
		return nil, err
	}
	for i := range md.Topics {
		if t := &md.Topics[i]; t.Name != nil && *t.Name == topic {
			f.topics[topic] = t
			return t, nil
		}
	}
	delete(f.topics, topic)
	return nil, nil
}

// retriable records err when it is a retriable Kafka error, returning nil
// (retry), and returns it otherwise.
func (r *partitionRetry) retriable(err error) error {
	var kerr *protocol.Error
	if !errors.As(err, &kerr) || !kerr.Retriable {
		return err
	}
	r.lastErr = err
	if kerr.InvalidMetadata {
		r.refresh = true
	}
	return nil
}

// wait waits out the backoff before the next attempt, or returns the
// error of a call that gives up because ctx ended.
func (r *partitionRetry) wait(ctx context.Context) error {
	t := time.NewTimer(retryBackoff)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		if r.lastErr != nil {
			return fmt.Errorf("%w: still failing when the deadline came: %w", admin.ErrUnreachable, r.lastErr)
		}
		return ctx.Err()
	}
}
