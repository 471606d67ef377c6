package sender

import (
	"context"
	"slices"
)

// PartitionInfo is what the cluster says of one partition.
type PartitionInfo struct {
	Topic     string
	Partition int32
	// Leader is the leader's broker id, -1 when the partition has none
	// (or in a dry run without a cluster).
	Leader      int32
	LeaderEpoch int32
	Replicas    []int32
	ISR         []int32
	Offline     []int32
	// Err is the partition's error (LEADER_NOT_AVAILABLE...), nil when
	// none.
	Err error
}

// PartitionsFor returns the partitions of topic, waiting for its metadata
// as Produce does (up to MaxBlock), so that records produced to it later
// do not wait. (In a dry run with a partition count, the topic has that
// many partitions, without leaders.)
func (p *Producer) PartitionsFor(ctx context.Context, topic string) ([]PartitionInfo, error) {
	if p.dry != nil && p.dry.partitions > 0 {
		out := make([]PartitionInfo, p.dry.partitions)
		for i := range out {
			out[i] = PartitionInfo{Topic: topic, Partition: int32(i), Leader: -1, LeaderEpoch: -1}
		}
		return out, nil
	}
	if _, err := p.partitionCount(ctx, topic); err != nil {
		return nil, err
	}
	t, ok := p.md.Fetch().Topic(topic)
	if !ok { // gone from the metadata since: ask again
		return p.PartitionsFor(ctx, topic)
	}
	out := make([]PartitionInfo, len(t.Partitions))
	for i, pm := range t.Partitions {
		out[i] = PartitionInfo{Topic: topic, Partition: pm.ID, Leader: pm.Leader, LeaderEpoch: pm.LeaderEpoch,
			Replicas: slices.Clone(pm.Replicas), ISR: slices.Clone(pm.ISR), Offline: slices.Clone(pm.Offline), Err: pm.Err}
	}
	return out, nil
}
