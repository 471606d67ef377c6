package perfcmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// maxPayloadFileBytes bounds the --payload-file, which is held in memory.
const maxPayloadFileBytes = 1 << 30

// maxPayloadEntries bounds the number of --payload-file entries, each of
// which costs a slice beside its bytes (a gigabyte of delimiters would
// otherwise take 24).
const maxPayloadEntries = 1 << 24

// payloadReadSize is how much of the --payload-file is read at a time.
const payloadReadSize = 1 << 20

// readPayloadFile reads the --payload-file entries; a file that cannot be
// read, holds none, holds too many or holds one that cannot fit in a
// request (with the records' key and headers) is a usage error, told as
// soon as the reading reaches it.
func (o *Options) readPayloadFile() error {
	if o.Payload.File == "" {
		return nil
	}
	f, err := os.Open(o.Payload.File)
	if err != nil {
		return cmdutil.UsageErrorf("--payload-file: %w", err)
	}
	defer f.Close()
	overhead := int64(o.KeySize) + int64(o.Headers)*int64(o.HeaderSize)
	s := payloadSplitter{delim: o.Payload.Delimiter, maxEntry: int64(o.Producer.MaxRequestSize) - overhead,
		maxCount: maxPayloadEntries}
	if err := s.read(f); err != nil {
		return cmdutil.UsageErrorf("--payload-file %s: %w", o.Payload.File, err)
	}
	o.Payload.Entries = s.entries()
	if len(o.Payload.Entries) == 0 {
		return cmdutil.UsageErrorf("--payload-file %s: no payload in it (an empty file?)", o.Payload.File)
	}
	return nil
}

// payloadSplitter reads a payload file and finds its entries' ends as it
// goes.
type payloadSplitter struct {
	delim    []byte
	maxEntry int64 // the largest value a request can hold
	maxCount int   // the most entries
	data     []byte
	ends     []uint32 // the offset of each delimiter found
	searched int      // data[:searched] holds no other delimiter start
}

// read reads r to its end, or to the first entry or bound it breaks.
func (s *payloadSplitter) read(r io.Reader) error {
	for {
		s.data = slices.Grow(s.data, payloadReadSize)
		n, err := r.Read(s.data[len(s.data) : len(s.data)+payloadReadSize])
		s.data = s.data[:len(s.data)+n]
		if len(s.data) > maxPayloadFileBytes {
			return fmt.Errorf("larger than %d bytes", maxPayloadFileBytes)
		}
		if ferr := s.findEnds(err == io.EOF); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// findEnds records the delimiters read since the last call and checks
// the entries they end, and the one still open (at the end of the file,
// the last).
func (s *payloadSplitter) findEnds(final bool) error {
	for {
		i := bytes.Index(s.data[s.searched:], s.delim)
		if i < 0 {
			s.searched = max(s.searched, len(s.data)-len(s.delim)+1)
			break
		}
		end := s.searched + i
		if err := s.checkEntry(end); err != nil {
			return err
		}
		s.ends = append(s.ends, uint32(end))
		s.searched = end + len(s.delim)
		if len(s.ends) > s.maxCount {
			return fmt.Errorf("more than %d entries (a value is picked at random among them: fewer do as well)", s.maxCount)
		}
	}
	if final {
		return s.checkEntry(len(s.data))
	}
	return s.checkEntry(s.searched) // a delimiter may start after it
}

// checkEntry checks the size of the entry that ends at end.
func (s *payloadSplitter) checkEntry(end int) error {
	start := 0
	if n := len(s.ends); n > 0 {
		start = int(s.ends[n-1]) + len(s.delim)
	}
	if size := int64(end - start); size > s.maxEntry {
		return fmt.Errorf("entry %d, at byte %d, is more than %d bytes: with the records' key and headers it cannot fit in a request of --max-request-size;"+
			" is --payload-delimiter right? (raise --max-request-size, and the topic's max.message.bytes, for larger values)",
			len(s.ends)+1, start, s.maxEntry)
	}
	return nil
}

// entries returns the entries found; the empty entry after a last
// delimiter is not one.
func (s *payloadSplitter) entries() [][]byte {
	out := make([][]byte, 0, len(s.ends)+1)
	start := 0
	for _, e := range s.ends {
		end := int(e)
		out = append(out, s.data[start:end:end])
		start = end + len(s.delim)
	}
	if start < len(s.data) {
		out = append(out, s.data[start:])
	}
	return out
}
