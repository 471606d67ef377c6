package sender

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// MetadataFunc fetches the metadata of topics from the cluster, never
// creating a topic (allow_auto_topic_creation=false): an admin client's
// Metadata.
type MetadataFunc func(ctx context.Context, topics []string) (*protocol.MetadataResponse, error)

// MetadataPartitions is a PartitionCounter that learns partition counts
// from the cluster: one Metadata request per topic, when a record first
// names it; the answer (a count or the topic's error) holds for the rest of
// the run. A request that fails (no broker reachable, authentication) is
// fatal: every later topic fails with the same error without asking
// again. PartitionCount is called from one goroutine; Fatal from any.
type MetadataPartitions struct {
	fetch   MetadataFunc
	timeout time.Duration              // bounds one fetch
	known   map[string]topicPartitions // owned by PartitionCount's goroutine

	mu    sync.Mutex // guards fatal
	fatal error
}

// topicPartitions is what the cluster said of one topic.
type topicPartitions struct {
	n   int
	err error
}

// NewMetadataPartitions returns a PartitionCounter asking fetch, each
// fetch bounded by timeout.
func NewMetadataPartitions(fetch MetadataFunc, timeout time.Duration) *MetadataPartitions {
	return &MetadataPartitions{fetch: fetch, timeout: timeout, known: make(map[string]topicPartitions)}
}

// PartitionCount returns the topic's partition count, fetching it the
// first time. A topic the cluster does not have fails with
// ErrTopicMetadata and the cluster's error.
func (c *MetadataPartitions) PartitionCount(ctx context.Context, topic string) (int, error) {
	if tp, ok := c.known[topic]; ok {
		return tp.n, tp.err
	}
	if err := c.Fatal(); err != nil {
		return 0, err
	}
	fctx, cancel := context.WithTimeout(ctx, c.timeout)
	resp, err := c.fetch(fctx, []string{topic})
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		err = fmt.Errorf("cluster metadata for topic %s: %w", topic, err)
		c.mu.Lock()
		c.fatal = err
		c.mu.Unlock()
		return 0, err
	}
	tp := topicPartitionsOf(resp, topic)
	c.known[topic] = tp
	return tp.n, tp.err
}

// Fatal returns the error that ended asking the cluster, or nil.
func (c *MetadataPartitions) Fatal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fatal
}

// topicPartitionsOf reads the topic's partition count from a Metadata
// response. A topic listed with partitions has that many whatever its error
// (LEADER_NOT_AVAILABLE while leaders move: the producer would wait, not
// fail); a topic with no partitions fails with its error.
func topicPartitionsOf(resp *protocol.MetadataResponse, topic string) topicPartitions {
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if t.Name == nil || *t.Name != topic {
			continue
		}
		if len(t.Partitions) > 0 {
			return topicPartitions{n: len(t.Partitions)}
		}
		if kerr := protocol.ErrorForCode(t.ErrorCode); kerr != nil {
			return topicPartitions{err: fmt.Errorf("%w: %s: %w", ErrTopicMetadata, topic, kerr)}
		}
		return topicPartitions{err: fmt.Errorf("%w: %s: the cluster lists it without partitions", ErrTopicMetadata, topic)}
	}
	return topicPartitions{err: fmt.Errorf("%w: %s: the cluster does not list it", ErrTopicMetadata, topic)}
}
