// Package kafkatest holds the test helpers that the tests of several
// packages share, once:
//   - clusters: NewCluster starts a kfake cluster for one test (closed at
//     its cleanup), ProducerCluster and AdminCluster the shared topologies,
//     Listeners take a broker down as a crash does, Metadata is franz-go's
//     view of a cluster;
//   - reading back: ConsumeAll and ConsumeExactly (ReadCommitted),
//     CommittedValues, RecordCount, Consume, ProduceRaw;
//   - running kproduce in-process with a deadline: Run and Start with a
//     RunFunc (internal/cli's Execute), RunCommand, RunReportingCommand
//     and Resolve for one command built alone;
//   - the built binary, once per test process: Binary;
//   - waiting for a condition instead of sleeping: Poll, WaitFor;
//   - output: LockedBuffer, Lines, ParseJSONReports, ReadStatsJSON;
//   - the tests' own environment: RunIsolated, WithDefaultConfig.
//
// It is used by tests only. It imports no package of kproduce but
// internal/cli/cmdutil (whose own tests therefore do not use it), so that
// the tests of every other package, pkg/ included, may.
package kafkatest

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Consume reads records with a kgo consumer built from opts (seed brokers
// and what to consume) until at least n arrived. It fails on the first
// fetch error, or when ctx ends first.
func Consume(ctx context.Context, n int, opts ...kgo.Opt) ([]*kgo.Record, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var records []*kgo.Record
	for len(records) < n {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return records, fmt.Errorf("consumed %d of %d records: %w", len(records), n, err)
		}
		for _, fe := range fetches.Errors() {
			return records, fmt.Errorf("fetch %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
		}
		records = append(records, fetches.Records()...)
	}
	return records, nil
}

// FromStart is the consumer option that reads one partition of topic from
// its first offset.
func FromStart(topic string, partition int32) kgo.Opt {
	return kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().AtStart()}})
}

// ProduceRaw sends one encoded record batch to partition 0 of topic in a
// raw Produce request (acks=all) and returns the partition's answer.
func ProduceRaw(ctx context.Context, cl *kgo.Client, topic string, batch []byte) (kmsg.ProduceResponseTopicPartition, error) {
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	req.TimeoutMillis = 10_000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	part := kmsg.NewProduceRequestTopicPartition()
	part.Records = batch
	rt.Partitions = append(rt.Partitions, part)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return kmsg.ProduceResponseTopicPartition{}, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return kmsg.ProduceResponseTopicPartition{}, fmt.Errorf("produce answer for %d topics, want one partition", len(resp.Topics))
	}
	return resp.Topics[0].Partitions[0], nil
}
