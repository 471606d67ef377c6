package checkpoint

import (
	"encoding/json"
	"maps"
	"math"
	"strings"
)

// largestWritten is the longest Written a checkpoint has (RFC 3339 with
// nanoseconds, UTC).
const largestWritten = "2006-01-02T15:04:05.999999999Z"

// Largest is a checkpoint at least as large as every checkpoint the run
// writes as long as each source it begins is read to its end before the
// next one is (an input that fails to be read keeps its own entry): the
// sources folded as many as the inputs, every number at its largest, the
// sources begun but not folded yet and, after them, the input with the
// longest name. Its size is known before anything is produced, whatever
// the number of inputs.
func (t *Tracker) Largest() *Checkpoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	const most = math.MaxInt64
	sum := strings.Repeat("f", 64)
	cp := &Checkpoint{Version: Version, TransactionalID: t.transactionalID, Options: maps.Clone(t.options),
		Records: most, Transactions: most, Written: largestWritten}
	if n := int64(len(t.names)); n > 0 {
		cp.Folded = &Folded{Count: n, Bytes: most, SHA256: sum, GroupSize: t.fold.size, Groups: make([]string, groups(n, t.fold.size))}
		for i := range cp.Folded.Groups {
			cp.Folded.Groups[i] = sum
		}
	}
	largest := func(name string) Source { return Source{Name: name, Records: most, Bytes: most, SHA256: sum} }
	for _, s := range t.sources {
		cp.Sources = append(cp.Sources, largest(s.Name))
	}
	if name, ok := longestName(t.names); ok {
		cp.Sources = append(cp.Sources, largest(name))
	}
	return cp
}

// longestName is the name among names that takes the most bytes in a
// checkpoint (escaped in JSON); false when there are none.
func longestName(names []string) (string, bool) {
	longest, size := "", -1
	for _, name := range names {
		if b, _ := json.Marshal(name); len(b) > size {
			longest, size = name, len(b)
		}
	}
	return longest, size >= 0
}
