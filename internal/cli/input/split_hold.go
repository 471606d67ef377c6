package input

// holdChunk is the size of the chunks a record longer than the read buffer
// is gathered in.
const holdChunk = 1 << 20

// hold keeps part of a record that leaves the read buffer, the record
// being size bytes so far, while it is within the limit. Parts go to
// chunks of holdChunk bytes, never copied as the record grows: a record
// cut short at the limit has cost the limit's bytes, no more.
func (s *splitter) hold(size int64, part []byte) {
	if size > s.limit {
		return
	}
	for len(part) > 0 {
		if n := len(s.chunks); n == 0 || len(s.chunks[n-1]) == cap(s.chunks[n-1]) {
			c := s.spare
			if c == nil {
				c = make([]byte, 0, min(int64(holdChunk), s.limit))
			}
			s.chunks, s.spare = append(s.chunks, c), nil
		}
		last := &s.chunks[len(s.chunks)-1]
		k := min(len(part), cap(*last)-len(*last))
		*last = append(*last, part[:k]...)
		part = part[k:]
	}
}

// whole returns the record gathered by hold, followed by its last part:
// in its one chunk when it has room for the last part (a record of up to
// holdChunk bytes is copied once more, not twice), else in acc (grown to
// the record's size when needed); size is the record's size. It returns
// nil for a record over the limit.
func (s *splitter) whole(size int64, last []byte) []byte {
	if size > s.limit {
		return nil
	}
	if len(s.chunks) == 1 && cap(s.chunks[0])-len(s.chunks[0]) >= len(last) {
		rec := append(s.chunks[0], last...)
		s.release() // the chunk is kept for the next record: rec is valid until then
		return rec
	}
	if int64(cap(s.acc)) < size {
		s.acc = make([]byte, 0, size)
	}
	s.acc = s.acc[:0]
	for _, c := range s.chunks {
		s.acc = append(s.acc, c...)
	}
	s.acc = append(s.acc, last...)
	s.release()
	return s.acc
}

// release drops the chunks of the last record, keeping one for the next.
func (s *splitter) release() {
	if len(s.chunks) == 0 {
		return
	}
	s.spare = s.chunks[0][:0]
	clear(s.chunks)
	s.chunks = s.chunks[:0]
}
