package schema

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// protoPosition finds the (line L:C) position in protojson's errors. It
// is compiled when a record first fails, not at every start.
var protoPosition = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\(line (\d+):(\d+)\):?\s*`)
})

// protoErrorPath returns the path of the JSON member at the position a
// protojson error names ("" when it names none), and leaves the position
// out of the message.
func protoErrorPath(_ protoreflect.MessageDescriptor, text []byte, msg string) string {
	m := protoPosition().FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	off := offsetOf(text, line, col)
	if off < 0 {
		return ""
	}
	var path []pathElem
	s := scanner{data: text}
	pathAt(&s, off, &path, 0)
	return formatPath(path)
}

// cleanProtoMessage removes the position from a protojson error message.
func cleanProtoMessage(msg string) string {
	return strings.TrimSpace(protoPosition().ReplaceAllString(msg, ""))
}

// offsetOf is the byte offset of a 1-based line and column, -1 when the
// text has no such position.
func offsetOf(text []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(string(text[off:]), '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	if off+col-1 > len(text) {
		return -1
	}
	return off + col - 1
}

// pathAt appends to path the steps down to the innermost member or item
// whose text holds the offset off, reading the value at s.
func pathAt(s *scanner, off int, path *[]pathElem, depth int) {
	if depth > maxDepth {
		return
	}
	switch s.kind() {
	case kindObject:
		s.pos++
		for !s.consume('}') {
			keyAt := s.pos
			raw, _, ok := s.str()
			if !ok || !s.consume(':') {
				return
			}
			s.ws()
			valueAt := s.pos
			if !s.skip(depth + 1) {
				return
			}
			if off >= keyAt && off < s.pos {
				*path = append(*path, pathElem{field: string(raw)})
				if off >= valueAt {
					s.pos = valueAt
					pathAt(s, off, path, depth+1)
				}
				return
			}
			s.consume(',')
		}
	case kindArray:
		s.pos++
		for i := 0; !s.consume(']'); i++ {
			s.ws()
			at := s.pos
			if !s.skip(depth + 1) {
				return
			}
			if off >= at && off < s.pos {
				*path = append(*path, pathElem{index: i})
				s.pos = at
				pathAt(s, off, path, depth+1)
				return
			}
			s.consume(',')
		}
	}
}
