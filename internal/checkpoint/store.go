package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/fetch"
	"github.com/kproduce/kproduce/pkg/fetcher"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Client is what Load needs of a cluster: an admin client (the topic) and
// a fetcher (the records), as NewClient joins them.
type Client interface {
	EnsureTopic(ctx context.Context, name string, create *admin.TopicSpec) (*protocol.MetadataResponseTopic, bool, error)
	ListOffsets(ctx context.Context, topic string, partitions []int32, timestamp int64, isolation int8) (map[int32]int64, error)
	Fetch(ctx context.Context, opts fetcher.Options) (*fetch.Partition, error)
}

// clusterClient is an admin client with a fetcher over its connections.
type clusterClient struct {
	*admin.Client
	*fetcher.Fetcher
}

// NewClient is the Client of ac: its topics, and a fetcher over its
// connections for the records.
func NewClient(ac *admin.Client) Client { return clusterClient{ac, fetcher.New(ac)} }

// Reading parameters: the first window read back from the high watermark,
// the wait between two looks at a last stable offset held back by another
// producer's transaction, and the size of one fetch.
const (
	firstWindow    = 1024
	stableInterval = 100 * time.Millisecond
	fetchBytes     = 1 << 20
)

// ErrOpenTransaction is wrapped when the checkpoint partition stays held
// by another producer's open transaction until the context ends.
var ErrOpenTransaction = errors.New("a transaction of another producer is open on the checkpoint partition")

// Found is a checkpoint read back, with where it was.
type Found struct {
	*Checkpoint
	Partition int32
	Offset    int64
}

// Load returns the newest committed checkpoint of transactionalID in
// topic (creating the topic, compacted, when missing), or nil when there
// is none. Call it only once the transactional producer is initialized
// (see the package doc): then no transaction of this id is open, and the
// checkpoint returned is that of its last committed transaction.
func Load(ctx context.Context, c Client, topic, transactionalID string) (*Found, error) {
	md, _, err := c.EnsureTopic(ctx, topic, TopicSpec())
	if err != nil {
		return nil, fmt.Errorf("checkpoint topic: %w", err)
	}
	p := Partition(transactionalID, len(md.Partitions))
	hw, err := offset(ctx, c, topic, p, protocol.ListOffsetsLatest, protocol.IsolationReadUncommitted)
	if err != nil {
		return nil, err
	}
	start, err := offset(ctx, c, topic, p, protocol.ListOffsetsEarliest, protocol.IsolationReadUncommitted)
	if err != nil {
		return nil, err
	}
	if err := waitStable(ctx, c, topic, p, hw); err != nil {
		return nil, err
	}
	window := int64(firstWindow)
	for end := hw; end > start; window *= 2 {
		from := max(start, end-window)
		rec, err := newest(ctx, c, topic, p, from, end, transactionalID)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			return parseFound(rec, p, transactionalID, topic)
		}
		end = from
	}
	return nil, nil
}

// parseFound parses the checkpoint record found; a tombstone (null value)
// means the checkpoint was deleted.
func parseFound(rec *fetch.Record, p int32, transactionalID, topic string) (*Found, error) {
	if rec.Value == nil {
		return nil, nil
	}
	cp, err := Parse(rec.Value, transactionalID)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s/%d@%d: %w", topic, p, rec.Offset, err)
	}
	return &Found{Checkpoint: cp, Partition: p, Offset: rec.Offset}, nil
}

// offset is the offset of partition p of topic at timestamp.
func offset(ctx context.Context, c Client, topic string, p int32, timestamp int64, isolation int8) (int64, error) {
	offs, err := c.ListOffsets(ctx, topic, []int32{p}, timestamp, isolation)
	if err != nil {
		return 0, fmt.Errorf("checkpoint partition: %w", err)
	}
	return offs[p], nil
}

// waitStable waits until the last stable offset of the partition reaches
// hw: every transaction that wrote below hw has ended.
func waitStable(ctx context.Context, c Client, topic string, p int32, hw int64) error {
	for {
		lso, err := offset(ctx, c, topic, p, protocol.ListOffsetsLatest, protocol.IsolationReadCommitted)
		if err != nil {
			return err
		}
		if lso >= hw {
			return nil
		}
		t := time.NewTimer(stableInterval)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (%s/%d from offset %d; it ends within its transaction timeout): %w", ErrOpenTransaction, topic, p, lso, ctx.Err())
		}
	}
}

// newest reads [from, end) of the partition read_committed and returns
// the last record keyed by key, or nil.
func newest(ctx context.Context, c Client, topic string, p int32, from, end int64, key string) (*fetch.Record, error) {
	var found *fetch.Record
	for off := from; off < end; {
		got, err := c.Fetch(ctx, fetcher.Options{Topic: topic, Partition: p, Offset: off,
			Isolation: protocol.IsolationReadCommitted, MaxBytes: fetchBytes})
		if err != nil {
			return nil, fmt.Errorf("reading checkpoints: %w", err)
		}
		for i := range got.Records {
			if r := &got.Records[i]; r.Offset < end && string(r.Key) == key {
				found = r
			}
		}
		if got.NextOffset <= off {
			return nil, fmt.Errorf("reading checkpoints: no progress at %s/%d@%d (last stable offset %d)", topic, p, off, got.LastStableOffset)
		}
		off = got.NextOffset
	}
	return found, nil
}
