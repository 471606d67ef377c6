package sender

import (
	"context"
	"fmt"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// PartitionCounter tells a Router how many partitions a topic has.
type PartitionCounter interface {
	// PartitionCount returns the topic's partition count, or why records
	// cannot go to it.
	PartitionCount(ctx context.Context, topic string) (int, error)
}

// FixedPartitions is a PartitionCounter for which every topic has n
// partitions: a dry run with no cluster.
type FixedPartitions int

// PartitionCount returns n whatever the topic.
func (n FixedPartitions) PartitionCount(context.Context, string) (int, error) { return int(n), nil }

// Router places records as a Producer would, without sending them: the
// same partitioner, called in the same order (see Producer.append: a
// sticky partition is chosen again when the record would start a new
// batch), against a BatchFill standing in for the accumulator, so that a
// sticky partition moves on when its batch would be full. It is what a dry
// run uses. Not safe for concurrent use.
type Router struct {
	counts PartitionCounter
	part   accumulator.Partitioner
	fill   *accumulator.BatchFill
}

// NewRouter returns a router placing records as a producer of cfg would;
// counts gives the topics' partition counts. cfg.Partitioner must not be
// used by anything else: partitioners keep state.
func NewRouter(cfg Config, counts PartitionCounter) (*Router, error) {
	if cfg.Partitioner == nil {
		return nil, fmt.Errorf("%w: a router needs a partitioner", ErrConfig)
	}
	acc := cfg.Accumulator
	acc.MaxRequestSize = cfg.MaxRequestSize // as the producer sets it
	return &Router{counts: counts, part: cfg.Partitioner, fill: accumulator.NewBatchFill(acc)}, nil
}

// Route returns the partition of a record of topic: partition itself when
// it is not -1, else the partitioner's choice. An error is the reason the
// producer would refuse the record (unknown topic or partition, too large).
func (d *Router) Route(ctx context.Context, topic string, partition int32, ts int64,
	key, value []byte, headers []protocol.Header) (int32, error) {
	n, err := d.counts.PartitionCount(ctx, topic)
	if err != nil {
		return -1, err
	}
	if partition >= int32(n) {
		return -1, fmt.Errorf("%w: partition %d of topic %s, which has %d partitions", ErrUnknownPartition, partition, topic, n)
	}
	tp := accumulator.TopicPartition{Topic: topic, Partition: partition}
	sticky := partition < 0 && key == nil
	if partition < 0 {
		tp.Partition = d.part.Partition(topic, key, n)
	}
	res, err := d.fill.Append(tp, ts, key, value, headers, sticky)
	if err == nil && res.AbortForNewBatch {
		d.part.OnNewBatch(topic, n, tp.Partition)
		tp.Partition = d.part.Partition(topic, key, n)
		_, err = d.fill.Append(tp, ts, key, value, headers, false)
	}
	if err != nil {
		return -1, err
	}
	return tp.Partition, nil
}
