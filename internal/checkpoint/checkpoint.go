package checkpoint

import (
	"crypto/sha256"
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

// Version is the version of the checkpoint document this package writes.
// It reads version 1 too: the same document with every source begun in
// Sources (none Folded).
const Version = 2

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
	// Folded are the sources read to their end at the start of the input
	// (all but the last source begun), folded into one entry; nil when
	// there are none.
	Folded *Folded `json:"folded,omitempty"`
	// Sources are the sources begun after the folded ones, in input
	// order: the last source begun, and the sources from the first one
	// not read to its end (an input that failed) to it.
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
	if c.Version != 1 && c.Version != Version {
		return nil, fmt.Errorf("%w: version %d (this kproduce reads versions 1 to %d)", ErrMalformed, c.Version, Version)
	}
	if c.TransactionalID != transactionalID {
		return nil, fmt.Errorf("%w: written for transactional id %q", ErrMalformed, c.TransactionalID)
	}
	if c.Records < 0 || c.Transactions < 0 {
		return nil, fmt.Errorf("%w: %d records, %d transactions", ErrMalformed, c.Records, c.Transactions)
	}
	if err := c.Folded.check(c.Version, len(c.Sources)); err != nil {
		return nil, err
	}
	for i, s := range c.Sources {
		if !isSHA256(s.SHA256) || s.Name == "" || s.Bytes < 0 || s.Records < 0 {
			return nil, fmt.Errorf("%w: source %d (%q): %d records, %d bytes, sha256 %q", ErrMalformed, c.FoldedCount()+i+1, s.Name, s.Records, s.Bytes, s.SHA256)
		}
	}
	return &c, nil
}

// check checks a Folded entry (nil: none) of a checkpoint of the version
// given, with sources entries after it.
func (f *Folded) check(version, sources int) error {
	if f == nil {
		return nil
	}
	if version < 2 {
		return fmt.Errorf("%w: folded sources in a version %d checkpoint", ErrMalformed, version)
	}
	if f.Count <= 0 || f.Bytes < 0 || f.GroupSize <= 0 || !isSHA256(f.SHA256) || int64(len(f.Groups)) != groups(f.Count, f.GroupSize) {
		return fmt.Errorf("%w: folded sources: %d sources, %d bytes, sha256 %q, %d groups of %d", ErrMalformed,
			f.Count, f.Bytes, f.SHA256, len(f.Groups), f.GroupSize)
	}
	for i, g := range f.Groups {
		if !isSHA256(g) {
			return fmt.Errorf("%w: folded sources: group %d: sha256 %q", ErrMalformed, i+1, g)
		}
	}
	if sources == 0 {
		return fmt.Errorf("%w: %d folded sources and no last source", ErrMalformed, f.Count)
	}
	return nil
}

// isSHA256 reports whether s is a SHA-256 in hex.
func isSHA256(s string) bool {
	sum, err := hex.DecodeString(s)
	return err == nil && len(sum) == sha256.Size
}

// FoldedCount is the number of sources folded (Folded.Count; 0 when
// none).
func (c *Checkpoint) FoldedCount() int {
	if c.Folded == nil {
		return 0
	}
	return int(c.Folded.Count)
}

// Begun is the number of sources begun: folded or in Sources.
func (c *Checkpoint) Begun() int { return c.FoldedCount() + len(c.Sources) }

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
