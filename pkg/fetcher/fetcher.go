package fetcher

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/fetch"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Fetcher reads records back over an admin.Client's connections. It is
// safe for concurrent use: one request at a time is sent, and a call
// waiting to retry lets the others go.
type Fetcher struct {
	client *admin.Client
	mu     sync.Mutex                                 // serialises the attempts (not their retry waits), and guards topics
	topics map[string]*protocol.MetadataResponseTopic // the metadata of the topics read, refreshed on demand
}

// New returns a Fetcher over client's connections; closing client ends
// it.
func New(client *admin.Client) *Fetcher {
	return &Fetcher{client: client, topics: make(map[string]*protocol.MetadataResponseTopic)}
}

// DefaultMaxBytes is Options.MaxBytes when 0.
const DefaultMaxBytes = 1 << 20

// fetchResponseMaxBytes is the MaxBytes of a Fetch request, which bounds
// the whole response: Java's fetch.max.bytes default. The partition's
// limit (Options.MaxBytes) is what binds; a response limit no larger
// than it makes kfake leave out the partition's aborted transactions.
const fetchResponseMaxBytes = 50 << 20

// ListOffsets returns the offset of each of partitions of topic at
// timestamp (protocol.ListOffsetsLatest, protocol.ListOffsetsEarliest, or
// a time in ms: the first offset whose record is at least that recent, -1
// when none is), asking each partition's leader. Under
// protocol.IsolationReadCommitted the latest offset is the last stable
// offset: below it every transaction has ended. Leader changes and other
// retriable errors are retried until ctx ends.
func (f *Fetcher) ListOffsets(ctx context.Context, topic string, partitions []int32, timestamp int64, isolation int8) (map[int32]int64, error) {
	out := make(map[int32]int64, len(partitions))
	todo := slices.Clone(partitions)
	retry := &partitionRetry{f: f, topic: topic}
	for {
		f.mu.Lock()
		failed, err := f.listOffsetsOnce(ctx, retry, todo, timestamp, isolation, out)
		f.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("list offsets of %s: %w", topic, err)
		}
		if todo = failed; len(todo) == 0 {
			return out, nil
		}
		if err := retry.wait(ctx); err != nil {
			return nil, fmt.Errorf("list offsets of %s: %w", topic, err)
		}
	}
}

// listOffsetsOnce asks the leaders of partitions for their offsets, into
// out, and returns the partitions to retry. f.mu must be held.
func (f *Fetcher) listOffsetsOnce(ctx context.Context, retry *partitionRetry, partitions []int32, timestamp int64, isolation int8,
	out map[int32]int64) ([]int32, error) {
	byLeader, todo, err := f.groupByLeader(ctx, retry, partitions)
	if err != nil {
		return nil, err
	}
	for _, node := range slices.Sorted(maps.Keys(byLeader)) {
		failed, err := f.listOffsetsFrom(ctx, retry, node, byLeader[node], timestamp, isolation, out)
		if err != nil {
			return nil, err
		}
		todo = append(todo, failed...)
	}
	return todo, nil
}

// groupByLeader maps each leader to the partitions it leads, and returns
// the partitions without a leader yet (to retry). f.mu must be held.
func (f *Fetcher) groupByLeader(ctx context.Context, retry *partitionRetry, partitions []int32) (map[int32][]int32, []int32, error) {
	out := make(map[int32][]int32)
	var leaderless []int32
	for _, p := range partitions {
		node, _, ok, err := retry.leader(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			out[node] = append(out[node], p)
		} else {
			leaderless = append(leaderless, p)
		}
	}
	return out, leaderless, nil
}

// listOffsetsFrom asks node for the offsets of its partitions, storing them
// in out, and returns the partitions to retry.
func (f *Fetcher) listOffsetsFrom(ctx context.Context, retry *partitionRetry, node int32, partitions []int32,
	timestamp int64, isolation int8, out map[int32]int64) (failed []int32, err error) {
	req := &protocol.ListOffsetsRequest{ReplicaID: protocol.ConsumerReplicaID, IsolationLevel: isolation,
		TimeoutMs: int32(f.client.RequestTimeout() / time.Millisecond), Topics: []protocol.ListOffsetsRequestTopic{{Name: retry.topic}}}
	for _, p := range partitions {
		req.Topics[0].Partitions = append(req.Topics[0].Partitions,
			protocol.ListOffsetsRequestPartition{PartitionIndex: p, CurrentLeaderEpoch: -1, Timestamp: timestamp})
	}
	resp, err := f.client.Request(ctx, node, req)
	if err != nil {
		return nil, err
	}
	answered := make(map[int32]bool, len(partitions))
	for _, t := range resp.(*protocol.ListOffsetsResponse).Topics {
		for _, p := range t.Partitions {
			if t.Name != retry.topic || !slices.Contains(partitions, p.PartitionIndex) {
				continue
			}
			answered[p.PartitionIndex] = true
			if perr := protocol.ErrorForCode(p.ErrorCode); perr != nil {
				if err := retry.retriable(fmt.Errorf("%s/%d: %w", retry.topic, p.PartitionIndex, perr)); err != nil {
					return nil, err
				}
				failed = append(failed, p.PartitionIndex)
				continue
			}
			out[p.PartitionIndex] = p.Offset
		}
	}
	for _, p := range partitions {
		if !answered[p] {
			return nil, fmt.Errorf("broker %d did not answer for %s/%d", node, retry.topic, p)
		}
	}
	return failed, nil
}

// Options say what Fetch reads.
type Options struct {
	Topic     string
	Partition int32
	Offset    int64
	// Isolation is protocol.IsolationReadCommitted (records of aborted
	// and open transactions are never returned) or
	// protocol.IsolationReadUncommitted.
	Isolation int8
	// MaxBytes bounds the response (at least one whole batch is returned
	// whatever its size); 0 means DefaultMaxBytes.
	MaxBytes int32
	// MaxWait is how long the broker may wait for a first record when
	// there is none at Offset yet.
	MaxWait time.Duration
	// MaxUncompressed bounds the decompressed size of one batch; 0 means
	// fetch.DefaultMaxUncompressed.
	MaxUncompressed int
}

// Fetch reads records of one partition from its leader, from
// opts.Offset: the records of the batches the broker returns, decoded and
// checked, with control records and (under read_committed) the records of
// aborted transactions left out. NextOffset of the result is where to
// fetch next; no records and an unchanged offset mean there was nothing
// to read within opts.MaxWait. OFFSET_OUT_OF_RANGE and other permanent
// errors are returned; leader changes are retried until ctx ends.
func (f *Fetcher) Fetch(ctx context.Context, opts Options) (*fetch.Partition, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	retry := &partitionRetry{f: f, topic: opts.Topic}
	for {
		f.mu.Lock()
		got, err := f.fetchOnce(ctx, retry, &opts)
		f.mu.Unlock()
		if err != nil || got != nil {
			if err != nil {
				err = fmt.Errorf("fetch %s/%d at offset %d: %w", opts.Topic, opts.Partition, opts.Offset, err)
			}
			return got, err
		}
		if err := retry.wait(ctx); err != nil {
			return nil, fmt.Errorf("fetch %s/%d at offset %d: %w", opts.Topic, opts.Partition, opts.Offset, err)
		}
	}
}

// fetchOnce sends one Fetch to the partition's leader. It returns nil and
// no error when the attempt must be retried. f.mu must be held.
func (f *Fetcher) fetchOnce(ctx context.Context, retry *partitionRetry, opts *Options) (*fetch.Partition, error) {
	node, topicID, ok, err := retry.leader(ctx, opts.Partition)
	if err != nil || !ok {
		return nil, err
	}
	req := &protocol.FetchRequest{ReplicaID: protocol.ConsumerReplicaID, MaxWaitMs: int32(opts.MaxWait / time.Millisecond),
		MinBytes: 1, MaxBytes: max(opts.MaxBytes, fetchResponseMaxBytes), IsolationLevel: opts.Isolation, SessionEpoch: -1,
		Topics: []protocol.FetchRequestTopic{{Name: opts.Topic, TopicID: topicID, Partitions: []protocol.FetchRequestPartition{{
			Partition: opts.Partition, CurrentLeaderEpoch: -1, FetchOffset: opts.Offset, LastFetchedEpoch: -1,
			LogStartOffset: -1, PartitionMaxBytes: opts.MaxBytes}}}}}
	resp, err := f.client.Request(ctx, node, req)
	if err != nil {
		return nil, err
	}
	fr := resp.(*protocol.FetchResponse)
	if err := protocol.ErrorForCode(fr.ErrorCode); err != nil {
		return nil, retry.retriable(err)
	}
	for _, t := range fr.Topics {
		if t.Name != opts.Topic && (t.TopicID != topicID || topicID == [16]byte{}) {
			continue
		}
		for i := range t.Partitions {
			p := &t.Partitions[i]
			if p.PartitionIndex != opts.Partition {
				continue
			}
			got, err := fetch.Decode(p, fetch.Options{FetchOffset: opts.Offset, Isolation: opts.Isolation, MaxUncompressed: opts.MaxUncompressed})
			if err != nil {
				return nil, retry.retriable(err)
			}
			return got, nil
		}
	}
	return nil, fmt.Errorf("broker %d did not answer for %s/%d", node, opts.Topic, opts.Partition)
}
