package checkpoint

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// DefaultTopic is the topic checkpoints go to unless told otherwise.
const DefaultTopic = "kproduce-checkpoints"

// Version is the version of the checkpoint document this package writes
// and reads.
const Version = 1

// ErrMalformed is wrapped by the error of a checkpoint record that does
// not parse.
var ErrMalformed = errors.New("malformed checkpoint")

// Source is how far one input source is done.
type Source struct {
	// Name is the file name, "-" for stdin.
	Name string `json:"name"`
	// Records is the number of the last record read (empty records
	// skipped by the reader count too).
	Records int64 `json:"records"`
	// Bytes is how many bytes of the source were consumed: up to the end
	// of its last record read, delimiter included.
	Bytes int64 `json:"bytes"`
	// SHA256 is the hex SHA-256 of those bytes.
	SHA256 string `json:"sha256"`
	// Complete says the source was read to its end: it ends at Bytes.
	Complete bool `json:"complete"`
}

// Checkpoint is how far a load is done once the transaction it was
// written in is committed.
type Checkpoint struct {
	Version         int    `json:"version"`
	TransactionalID string `json:"transactional_id"`
	// Options are the options that decide how input bytes become
	// numbered records; a resumed run must use the same.
	Options map[string]string `json:"options"`
	// Sources are the sources begun so far, in input order.
	Sources []Source `json:"sources"`
	// Records is the number of records the load has read.
	Records int64 `json:"records"`
	// Transactions is the number of transactions committed, this one
	// included.
	Transactions int64 `json:"transactions"`
	// Done says the whole input was read: nothing is left to produce.
	Done bool `json:"done"`
	// Written is when the checkpoint was taken (RFC 3339, UTC).
	Written string `json:"written"`
}

// Marshal encodes the checkpoint as the value of its record.
func (c *Checkpoint) Marshal() []byte {
	b, _ := json.Marshal(c) // strings, numbers and booleans: it cannot fail
	return b
}

// Parse decodes and checks the value of a checkpoint record written for
// transactionalID.
func Parse(value []byte, transactionalID string) (*Checkpoint, error) {
	var c Checkpoint
	if err := json.Unmarshal(value, &c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if c.Version != Version {
		return nil, fmt.Errorf("%w: version %d (this kproduce reads version %d)", ErrMalformed, c.Version, Version)
	}
	if c.TransactionalID != transactionalID {
		return nil, fmt.Errorf("%w: written for transactional id %q", ErrMalformed, c.TransactionalID)
	}
	if c.Records < 0 || c.Transactions < 0 {
		return nil, fmt.Errorf("%w: %d records, %d transactions", ErrMalformed, c.Records, c.Transactions)
	}
	for i, s := range c.Sources {
		if sum, err := hex.DecodeString(s.SHA256); err != nil || len(sum) != 32 || s.Name == "" || s.Bytes < 0 || s.Records < 0 {
			return nil, fmt.Errorf("%w: source %d (%q): %d records, %d bytes, sha256 %q", ErrMalformed, i+1, s.Name, s.Records, s.Bytes, s.SHA256)
		}
	}
	return &c, nil
}

// Partition is the partition of a topic of n partitions that holds the
// checkpoints of transactionalID: Kafka's default partitioner for its key.
func Partition(transactionalID string, n int) int32 {
	if n <= 0 {
		return -1
	}
	return (accumulator.Murmur2([]byte(transactionalID)) & 0x7fffffff) % int32(n)
}

// TopicSpec is how a missing checkpoint topic is created: one partition
// (readers of a checkpoint read one partition's tail), compacted (the
// newest checkpoint of each transactional id is kept), the broker's
// replication factor.
func TopicSpec() *admin.TopicSpec {
	compact := "compact"
	return &admin.TopicSpec{Partitions: 1, ReplicationFactor: -1,
		Configs: []protocol.CreateTopicsRequestConfig{{Name: "cleanup.policy", Value: &compact}}}
}

// formatTime is the form of Checkpoint.Written.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
