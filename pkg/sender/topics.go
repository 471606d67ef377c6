package sender

import "context"

// PartitionCount returns the number of partitions of topic, waiting for
// its metadata as Send does (up to MaxBlock), so that records sent to it
// later do not wait.
func (p *Producer) PartitionCount(ctx context.Context, topic string) (int, error) {
	return p.partitionCount(ctx, topic)
}
