package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
)

// skipFolded reads each source fd folds to its end (source i from
// input(i), named names[i], in order), checks them against fd a group at
// a time and folds them into into, as the run goes on folding. A
// difference is a *MismatchError naming the group's range of inputs: the
// first group that differs, or the sources that hold more bytes than fd
// as soon as they do. Only a buffer's worth of input is held at a time.
func skipFolded(fd *Folded, names []string, input func(i int) io.Reader, into *folder) error {
	check := newFolder(fd.GroupSize)
	buf := make([]byte, skipBuffer)
	left := fd.Bytes
	h, sum := sha256.New(), make([]byte, 0, sha256.Size)
	var limited io.LimitedReader
	for i := range fd.Count {
		name, g := names[i], i/fd.GroupSize
		h.Reset()
		limited = io.LimitedReader{R: input(int(i)), N: min(left, math.MaxInt64-1) + 1}
		n, err := io.CopyBuffer(h, &limited, buf)
		if err != nil {
			return fmt.Errorf("%s: reading the part committed by the earlier run: %w", name, err)
		}
		if n > left {
			// The groups before g matched: the bytes too many are in g.
			return foldedMismatch(names, g*fd.GroupSize, i, fmt.Sprintf(
				"the earlier run read the first %d inputs to their end, %d bytes in all; these hold more now", fd.Count, fd.Bytes))
		}
		left -= n
		sum = h.Sum(sum[:0])
		into.add(name, n, sum)
		if done := check.add(name, n, sum); done != "" && done != fd.Groups[g] {
			return groupMismatch(fd, names, g, done)
		}
	}
	last := int64(len(fd.Groups)) - 1
	if open := check.openGroup(); open != "" && open != fd.Groups[last] {
		return groupMismatch(fd, names, last, open)
	}
	if sum := hex.EncodeToString(check.all.Sum(nil)); sum != fd.SHA256 || check.bytes != fd.Bytes {
		return foldedMismatch(names, 0, fd.Count-1, fmt.Sprintf(
			"not the %d bytes the earlier run read to their end (sha256 %s, the earlier run's %s)", fd.Bytes, sum[:12], fd.SHA256[:12]))
	}
	return nil
}

// groupMismatch says that group g of fd differs: sum is its SHA-256 now.
func groupMismatch(fd *Folded, names []string, g int64, sum string) error {
	from := g * fd.GroupSize
	to := min(from+fd.GroupSize, fd.Count) - 1
	what := "not what the earlier run read to its end: its name, its length or its bytes differ"
	if to > from {
		what = "not what the earlier run read to their end: the name, the length or the bytes of one of them (at least) differ"
	}
	return foldedMismatch(names, from, to, fmt.Sprintf("%s (sha256 %s, the earlier run's %s)", what, sum[:12], fd.Groups[g][:12]))
}

// foldedMismatch is the error of inputs from to to (from 0), folded in
// the checkpoint, that differ as what says.
func foldedMismatch(names []string, from, to int64, what string) *MismatchError {
	m := &MismatchError{Source: names[from], Index: int(from) + 1, What: what}
	if to > from {
		m.Last, m.LastIndex = names[to], int(to)+1
	}
	return m
}
