package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// topicPollInterval is the wait between two metadata fetches while a
// created topic's partitions get their leaders.
const topicPollInterval = 100 * time.Millisecond

// TopicSpec is how EnsureTopic creates a missing topic.
type TopicSpec struct {
	// Partitions is the partition count; -1 means the broker's default.
	Partitions int32
	// ReplicationFactor is the replica count of each partition; -1 means
	// the broker's default.
	ReplicationFactor int16
	// Configs are topic configs set at creation (cleanup.policy=compact
	// ...); nil for the broker's defaults.
	Configs []protocol.CreateTopicsRequestConfig
}

// EnsureTopic returns the topic's metadata. When the topic does not exist
// and create is not nil, it creates it (CreateTopics to the controller,
// asking again after NOT_CONTROLLER) and waits until every partition has a
// leader or ctx ends; created reports whether this call created it. A
// missing topic with create nil fails with ErrUnknownTopicOrPartition.
func (c *Client) EnsureTopic(ctx context.Context, name string, create *TopicSpec) (t *protocol.MetadataResponseTopic, created bool, err error) {
	md, err := c.Metadata(ctx, []string{name})
	if err != nil {
		return nil, false, err
	}
	t, err = findTopic(md, name)
	if err == nil {
		return t, false, nil
	}
	if !errors.Is(err, protocol.ErrUnknownTopicOrPartition) {
		return nil, false, err
	}
	if create == nil {
		return nil, false, fmt.Errorf("topic %s does not exist: %w", name, protocol.ErrUnknownTopicOrPartition)
	}
	created, err = c.createTopic(ctx, md, name, *create)
	for errors.Is(err, protocol.ErrNotController) {
		// The controller moved: ask the one the metadata names now.
		select {
		case <-ctx.Done():
			return nil, false, fmt.Errorf("%w (%w)", err, ctx.Err())
		case <-time.After(topicPollInterval):
		}
		if md, err = c.Metadata(ctx, []string{name}); err == nil {
			created, err = c.createTopic(ctx, md, name, *create)
		}
	}
	if err != nil {
		return nil, false, err
	}
	t, err = c.waitForLeaders(ctx, name)
	return t, created, err
}

// findTopic returns the topic of a Metadata response, or its error.
func findTopic(md *protocol.MetadataResponse, name string) (*protocol.MetadataResponseTopic, error) {
	for i := range md.Topics {
		t := &md.Topics[i]
		if t.Name == nil || *t.Name != name {
			continue
		}
		if err := protocol.ErrorForCode(t.ErrorCode); err != nil {
			return nil, fmt.Errorf("topic %s: %w", name, err)
		}
		if len(t.Partitions) == 0 {
			return nil, fmt.Errorf("topic %s: %w (no partitions)", name, protocol.ErrUnknownTopicOrPartition)
		}
		return t, nil
	}
	return nil, fmt.Errorf("topic %s: %w (not in the metadata response)", name, protocol.ErrUnknownTopicOrPartition)
}

// createTopic sends CreateTopics to the controller (any broker when the
// metadata names none, or one that is not among its brokers, as
// librdkafka's mock cluster does). A topic created meanwhile is fine:
// created is then false.
func (c *Client) createTopic(ctx context.Context, md *protocol.MetadataResponse, name string, spec TopicSpec) (bool, error) {
	node := md.ControllerID
	listed := slices.ContainsFunc(md.Brokers, func(b protocol.MetadataResponseBroker) bool { return b.NodeID == node })
	if !listed && len(md.Brokers) > 0 {
		node = md.Brokers[0].NodeID
	}
	timeout := int32(10_000)
	if d, ok := ctx.Deadline(); ok {
		timeout = int32(max(time.Until(d).Milliseconds(), 1))
	}
	req := &protocol.CreateTopicsRequest{
		Topics: []protocol.CreateTopicsRequestTopic{{Name: name, NumPartitions: spec.Partitions,
			ReplicationFactor: spec.ReplicationFactor, Configs: spec.Configs}},
		TimeoutMs: timeout,
	}
	resp, err := c.Request(ctx, node, req)
	if err != nil {
		return false, fmt.Errorf("create topic %s: %w", name, err)
	}
	for _, t := range resp.(*protocol.CreateTopicsResponse).Topics {
		if t.Name != name {
			continue
		}
		err := protocol.ErrorForCode(t.ErrorCode)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, protocol.ErrTopicAlreadyExists):
			return false, nil
		case t.ErrorMessage != nil && *t.ErrorMessage != "":
			return false, fmt.Errorf("create topic %s: %w (broker: %s)", name, err, *t.ErrorMessage)
		}
		return false, fmt.Errorf("create topic %s: %w", name, err)
	}
	return false, fmt.Errorf("create topic %s: the broker's answer does not mention it", name)
}

// waitForLeaders fetches the topic's metadata until every partition has a
// leader, or ctx ends.
func (c *Client) waitForLeaders(ctx context.Context, name string) (*protocol.MetadataResponseTopic, error) {
	for {
		md, err := c.Metadata(ctx, []string{name})
		if err != nil {
			return nil, fmt.Errorf("waiting for the created topic %s: %w", name, err)
		}
		t, err := findTopic(md, name)
		if err == nil && allLed(t) {
			return t, nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				return t, nil // report the partitions still without a leader
			}
			return nil, fmt.Errorf("waiting for the created topic %s: %w", name, err)
		case <-time.After(topicPollInterval):
		}
	}
}

// allLed reports whether every partition of t has a leader.
func allLed(t *protocol.MetadataResponseTopic) bool {
	for _, p := range t.Partitions {
		if p.LeaderID < 0 || p.ErrorCode != 0 {
			return false
		}
	}
	return true
}
