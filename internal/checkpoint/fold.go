package checkpoint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// maxGroups is the most groups a Folded entry is summed up in: its size
// stays below 5 kB however many sources it folds.
const maxGroups = 64

// Folded is the sources read to their end at the start of the input,
// folded into one entry so that a checkpoint does not grow with the
// number of sources: their count, their bytes and one SHA-256 over the
// sequence of them all, each as its name, its length and the SHA-256 of
// its bytes (see appendEntry). Groups sum up the same sequence in runs of
// GroupSize sources, so that a difference can be placed within a group.
type Folded struct {
	// Count is how many sources are folded: the first Count inputs.
	Count int64 `json:"count"`
	// Bytes is the length of those sources together.
	Bytes int64 `json:"bytes"`
	// SHA256 is the hex SHA-256 of the entries of all of them.
	SHA256 string `json:"sha256"`
	// GroupSize is how many sources each group sums up (the last one
	// may hold fewer).
	GroupSize int64 `json:"group_size"`
	// Groups are the hex SHA-256 of the entries of each group, in order:
	// ceil(Count/GroupSize) of them.
	Groups []string `json:"groups"`
}

// groups is the number of groups count sources make, size to a group.
func groups(count, size int64) int64 {
	if count <= 0 {
		return 0
	}
	return (count-1)/size + 1
}

// groupSize is the group size of a load of n inputs: at most maxGroups
// groups.
func groupSize(n int) int64 { return max(1, groups(int64(n), maxGroups)) }

// folder folds sources read to their end, in input order.
type folder struct {
	count, bytes int64
	size         int64     // sources to a group
	all          hash.Hash // over every entry
	group        hash.Hash // over the entries of the open group
	closed       []string  // the hex SHA-256 of each full group
	entry        []byte    // scratch for an entry
}

func newFolder(size int64) *folder {
	return &folder{size: size, all: sha256.New(), group: sha256.New()}
}

// appendEntry appends the entry of one source to b: the length of its
// name and its name, its length in bytes and the SHA-256 of its bytes, the
// numbers as 8 bytes big-endian, so that no two sequences of sources
// share their entries' bytes.
func appendEntry(b []byte, name string, length int64, sum []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(name)))
	b = append(b, name...)
	b = binary.BigEndian.AppendUint64(b, uint64(length))
	return append(b, sum...)
}

// add folds the next source: its name, its length and the SHA-256 of its
// bytes. It returns the hex SHA-256 of the group the source closes, ""
// when it closes none.
func (f *folder) add(name string, length int64, sum []byte) string {
	f.entry = appendEntry(f.entry[:0], name, length, sum)
	f.all.Write(f.entry)
	f.group.Write(f.entry)
	f.count++
	f.bytes += length
	if f.count%f.size != 0 {
		return ""
	}
	done := hex.EncodeToString(f.group.Sum(nil))
	f.closed = append(f.closed, done)
	f.group.Reset()
	return done
}

// openGroup is the hex SHA-256 of the open group, "" when it is empty.
func (f *folder) openGroup() string {
	if f.count%f.size == 0 {
		return ""
	}
	return hex.EncodeToString(f.group.Sum(nil))
}

// state is the Folded entry of what was folded so far; nil when nothing
// was.
func (f *folder) state() *Folded {
	if f.count == 0 {
		return nil
	}
	fd := &Folded{Count: f.count, Bytes: f.bytes, SHA256: hex.EncodeToString(f.all.Sum(nil)), GroupSize: f.size,
		Groups: append(make([]string, 0, len(f.closed)+1), f.closed...)}
	if g := f.openGroup(); g != "" {
		fd.Groups = append(fd.Groups, g)
	}
	return fd
}
