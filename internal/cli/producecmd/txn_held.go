package producecmd

import (
	"time"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/sender"
)

// heldBlockSize is the number of entries per block of heldReports: blocks
// are never copied as the transaction grows.
const heldBlockSize = 4096

// heldEntry is what a transactional run keeps of one record until its
// transaction ends: 40 bytes. A record's key, value and error, when there
// is one to keep, are in heldReports.extras.
type heldEntry struct {
	number    int64 // record number in its source; 0: no report (a skipped record)
	offset    int64
	timestamp int64 // ms; -1: none
	source    int32
	partition int32
	topic     int32 // index in heldReports.topics
	extra     bool  // heldReports.extras holds the record's error, key or value
}

// heldExtra is the rarer part of a held report.
type heldExtra struct {
	err        error
	key, value []byte
}

// heldSegment maps record numbers of one source to entry indexes: the
// records numbered first.. of source are at base...
type heldSegment struct {
	source int32
	first  int64
	base   int64
}

// heldReports holds the reports of one transaction, in input order: each
// record read gets the next index (see note), and its report, which may
// arrive later and in any order, is stored at that index. Not safe for
// concurrent use.
type heldReports struct {
	blocks   [][]heldEntry
	segments []heldSegment
	next     int64 // index of the next record read
	topics   []string
	extras   map[int64]heldExtra
}

// note gives the record read next its index.
func (h *heldReports) note(source int32, number int64) {
	if n := len(h.segments); n > 0 {
		s := &h.segments[n-1]
		if s.source == source && number >= s.first && s.base+number-s.first >= h.next {
			h.next = s.base + number - s.first + 1
			return
		}
	}
	h.segments = append(h.segments, heldSegment{source: source, first: number, base: h.next})
	h.next++
}

// index is the entry index of a record, false for one never noted.
func (h *heldReports) index(source int32, number int64) (int64, bool) {
	for i := len(h.segments) - 1; i >= 0; i-- {
		s := &h.segments[i]
		if s.source == source && number >= s.first {
			if idx := s.base + number - s.first; idx < h.next {
				return idx, true
			}
		}
	}
	return 0, false
}

// put stores the report of rec (read at its Origin) with outcome err at
// its record's index; a record never noted is appended at the end.
func (h *heldReports) put(rec *sender.Record, err error, keepBytes bool) {
	o, _ := rec.Opaque.(*input.Origin)
	if o == nil {
		o = &input.Origin{Chunk: &input.Chunk{}}
	}
	source := int32(o.Input)
	idx, ok := h.index(source, o.Number)
	if !ok {
		idx = h.next
		h.next++
	}
	for int64(len(h.blocks))*heldBlockSize <= idx {
		h.blocks = append(h.blocks, make([]heldEntry, heldBlockSize))
	}
	e := &h.blocks[idx/heldBlockSize][idx%heldBlockSize]
	ts := int64(-1)
	if !rec.Timestamp.IsZero() {
		ts = rec.Timestamp.UnixMilli()
	}
	*e = heldEntry{number: o.Number, offset: rec.Offset, timestamp: ts, source: source,
		partition: rec.Partition, topic: h.topicIndex(rec.Topic)}
	if err != nil || keepBytes {
		if h.extras == nil {
			h.extras = make(map[int64]heldExtra)
		}
		x := heldExtra{err: err}
		if keepBytes {
			x.key, x.value = cloneBytes(rec.Key), cloneBytes(rec.Value)
		}
		h.extras[idx] = x
		e.extra = true
	}
}

// topicIndex interns a topic name.
func (h *heldReports) topicIndex(topic string) int32 {
	for i := len(h.topics) - 1; i >= 0; i-- {
		if h.topics[i] == topic {
			return int32(i)
		}
	}
	h.topics = append(h.topics, topic)
	return int32(len(h.topics) - 1)
}

// each calls fn with every held report in input order (a record, read at
// its Origin, and its outcome) and returns how many there were. The record
// is reused from call to call.
func (h *heldReports) each(sources []string, fn func(*sender.Record, error)) int {
	n := 0
	var rec sender.Record
	// The chunk of the last report's source: a run of many inputs (a
	// file each) makes no chunk for the inputs without a report here.
	chunk := &input.Chunk{Input: -1}
	var origin input.Origin
	for b, block := range h.blocks {
		for i := range block {
			e := &block[i]
			if e.number == 0 {
				continue
			}
			n++
			if chunk.Input != int(e.source) {
				chunk = &input.Chunk{Input: int(e.source)}
				if int(e.source) < len(sources) {
					chunk.Source = sources[e.source]
				}
			}
			origin = input.Origin{Number: e.number, Chunk: chunk}
			rec = sender.Record{Topic: h.topics[e.topic], Partition: e.partition, Offset: e.offset, Opaque: &origin}
			if e.timestamp != -1 {
				rec.Timestamp = time.UnixMilli(e.timestamp)
			}
			var err error
			if e.extra {
				x := h.extras[int64(b)*heldBlockSize+int64(i)]
				err, rec.Key, rec.Value = x.err, x.key, x.value
			}
			fn(&rec, err)
		}
	}
	return n
}
