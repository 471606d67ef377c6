package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// partitionCounter tells a dry run how many partitions a topic has.
type partitionCounter interface {
	// PartitionCount returns the topic's partition count, or why records
	// cannot go to it.
	PartitionCount(ctx context.Context, topic string) (int, error)
}

// fixedPartitions is --partitions: every topic has n partitions.
type fixedPartitions int

// PartitionCount returns n whatever the topic.
func (n fixedPartitions) PartitionCount(context.Context, string) (int, error) { return int(n), nil }

// dryRouter places records as the producer would, without sending them:
// the same partitioner, called in the same order (Producer.append's sticky
// dance), against a BatchFill standing in for the accumulator, so a sticky
// partition moves on when its batch would be full.
type dryRouter struct {
	counts partitionCounter
	part   accumulator.Partitioner
	fill   *accumulator.BatchFill
}

// newDryRouter returns the router of opts; rnd drives the random choices
// (nil: math/rand/v2).
func newDryRouter(opts *Options, counts partitionCounter, rnd func(n int) int) (*dryRouter, error) {
	if rnd == nil {
		rnd = rand.IntN
	}
	part, err := accumulator.ParsePartitioner(opts.Partitioner, rnd)
	if err != nil {
		return nil, asUsageError(err)
	}
	cfg, err := producerConfig(opts, false)
	if err != nil {
		return nil, err
	}
	acc := cfg.Accumulator
	acc.MaxRequestSize = cfg.MaxRequestSize // as the producer sets it
	return &dryRouter{counts: counts, part: part, fill: accumulator.NewBatchFill(acc)}, nil
}

// route returns the partition of a record of topic: partition itself when
// it is not -1, else the partitioner's choice. An error is the reason the
// producer would refuse the record (unknown topic or partition, too large).
func (d *dryRouter) route(ctx context.Context, topic string, partition int32, ts int64,
	key, value []byte, headers []protocol.Header) (int32, error) {
	n, err := d.counts.PartitionCount(ctx, topic)
	if err != nil {
		return -1, err
	}
	if partition >= int32(n) {
		return -1, fmt.Errorf("%w: partition %d of topic %s, which has %d partitions", sender.ErrUnknownPartition, partition, topic, n)
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
