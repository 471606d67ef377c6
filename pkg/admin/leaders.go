package admin

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	c       *Client
	topic   string
	lastErr error // the last retriable error, for the error of a call that gives up
	refresh bool  // the next attempt refreshes the topic's metadata first
}

// leader returns the leader of partition, fetching the topic's metadata
// when it is unknown or stale. ok is false when the partition has no
// leader yet (retry).
func (r *partitionRetry) leader(ctx context.Context, partition int32) (node int32, topicID [16]byte, ok bool, err error) {
	cluster := r.c.md.Fetch()
	t, known := cluster.Topic(r.topic)
	if !known || r.refresh {
		if _, err := r.c.metadataLocked(ctx, []string{r.topic}); err != nil {
			return 0, topicID, false, err
		}
		r.refresh = false
		cluster = r.c.md.Fetch()
		t, known = cluster.Topic(r.topic)
	}
	if !known {
		return 0, topicID, false, fmt.Errorf("topic %s is missing from the metadata", r.topic)
	}
	if t.Err != nil {
		return 0, t.ID, false, r.retriable(fmt.Errorf("topic %s: %w", r.topic, t.Err))
	}
	node, ok = cluster.LeaderFor(r.topic, partition)
	if !ok {
		if _, exists := cluster.Partition(r.topic, partition); !exists {
			return 0, t.ID, false, fmt.Errorf("topic %s has no partition %d (%d partitions)", r.topic, partition, len(t.Partitions))
		}
		return 0, t.ID, false, r.retriable(fmt.Errorf("%s/%d: %w", r.topic, partition, protocol.ErrLeaderNotAvailable))
	}
	return node, t.ID, true, nil
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
			return fmt.Errorf("%w: still failing when the deadline came: %w", ErrUnreachable, r.lastErr)
		}
		return ctx.Err()
	}
}

// metadataLocked is Metadata with c.mu held.
func (c *Client) metadataLocked(ctx context.Context, topics []string) (*protocol.MetadataResponse, error) {
	req := &protocol.MetadataRequest{}
	if topics != nil {
		req.Topics = make([]protocol.MetadataRequestTopic, len(topics))
		for i := range topics {
			req.Topics[i].Name = &topics[i]
		}
	}
	resp, err := c.roundTrip(ctx, c.leastLoaded, req)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	md := resp.(*protocol.MetadataResponse)
	c.md.Update(md, c.clock.Now()) // later calls know the brokers it lists
	return md, nil
}

// nodeRequest sends req to node and returns the response, failing with the
// request's name.
func (c *Client) nodeRequest(ctx context.Context, node int32, req protocol.Request) (protocol.Response, error) {
	resp, err := c.roundTrip(ctx, c.fixed(node), req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Key(), err)
	}
	return resp, nil
}
