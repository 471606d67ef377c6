package input

import (
	"bytes"
	"io"
	"math"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// jsonHeader is a header parsed from a JSON record.
type jsonHeader struct {
	key   string
	value span
}

// jsonFields are the fields of one JSON record, as spans of the scanner's
// scratch buffer.
type jsonFields struct {
	topic        span
	hasTopic     bool
	partition    int64
	hasPartition bool
	key          span
	hasKey       bool
	value        span
	hasValue     bool
	payload      bool // the value came as "payload"
	timestamp    int64
	hasTimestamp bool // a number, 0 included (1970-01-01): null or absent is none
	headers      []jsonHeader
}

// jsonReader reads the json format: one JSON object per record (records
// split at --delimiter, a newline by default):
//
//	{"topic":"t","partition":0,"key":"k","value":"v","headers":{"h":"1"},"timestamp":1700000000000}
//
// "payload" is accepted for "value" and "ts" for "timestamp" (ms), so the
// envelopes of kcat -J can be produced as they are. headers is an object
// (a value may be a list of values, for repeated keys), a list of
// {"key":..,"value":..} objects, or kcat's flat list ["k1","v1","k2","v2"].
// Strings are the bytes themselves (never base64); bytes that are not
// valid UTF-8 are kept. null is a null key, value or header value; any
// other non-string JSON value is sent as its compact JSON text. A record
// must have a value (null for a tombstone). Unknown fields (kcat's offset,
// tstype, broker, key_error...) are ignored. A record's topic is used
// unless --topic was given on the command line (the command line chooses:
// see producecmd's topicChooser); a record's partition overrides
// --partition. Lines holding only white space
// are skipped but keep their record number, so numbers are line numbers.
type jsonReader struct {
	source    string
	split     *splitter
	shaper    recordShaper
	number    int64
	scan      jsonScanner
	fields    jsonFields
	headers   []protocol.Header // reused for each record
	lastTopic string            // the previous record's topic, reused
}

// newJSONReader returns a json reader over r with a read buffer of bufSize
// bytes.
func newJSONReader(cfg *Config, source string, r io.Reader, bufSize int) *jsonReader {
	j := &jsonReader{
		source: source,
		split:  newSplitter(r, cfg.Delimiter, cfg.MaxRecordBytes, bufSize),
		shaper: newRecordShaper(cfg),
	}
	j.split.early = j.checkPrefix
	return j
}

// Next reads the next record.
func (j *jsonReader) Next(rec *Record) error {
	for {
		data, size, err := j.split.next()
		if err != nil {
			return err
		}
		if j.record(rec, data, size) {
			return nil
		}
	}
}

// readBuffered appends to b the records wholly in the read buffer, until b
// holds max records. Their bytes are copied into b (the first record's
// too, which Next left in the reader's scratch), since each record is
// parsed into the same scratch.
func (j *jsonReader) readBuffered(b *Batch, max int) {
	b.keep(&b.Records[len(b.Records)-1])
	if j.split.skipping {
		return // the buffer holds the rest of a record cut short
	}
	buf := j.split.buffered()
	used := 0
	for len(b.Records) < max {
		end, skip, ok := j.split.cut(buf[used:])
		if !ok {
			break
		}
		data, size := buf[used:used+end], int64(end)
		used += end + skip
		if rec := b.slot(); j.record(rec, data, size) {
			b.keep(rec)
			b.Records = b.Records[:len(b.Records)+1]
		}
	}
	j.split.discard(buf, used)
}

// record parses the next record, of size raw bytes (data, unless it is
// too large), into rec; false when it is a blank line skipped.
func (j *jsonReader) record(rec *Record, data []byte, size int64) bool {
	j.number++
	if j.split.recErr == nil && size <= j.split.limit && len(bytes.Trim(data, " \t\r\n")) == 0 {
		return false
	}
	*rec = Record{Record: sender.Record{Topic: j.shaper.topic, Partition: j.shaper.partition, Headers: j.shaper.headers},
		Source: j.source, Number: j.number, ReadAt: j.split.readAt}
	if j.split.recErr != nil {
		rec.Err = j.split.recErr
		return true
	}
	if size > j.split.limit {
		rec.Err = tooLarge(size, j.split.limit)
		return true
	}
	if err := j.parse(data); err != nil {
		rec.Err = err
		return true
	}
	j.fill(rec)
	return true
}

// parse parses one JSON object into j.fields.
func (j *jsonReader) parse(data []byte) error {
	p := &j.scan
	p.reset(data)
	j.fields = jsonFields{headers: j.fields.headers[:0]}
	if err := p.expect('{', "a JSON object"); err != nil {
		return err
	}
	if p.peek() == '}' {
		p.pos++
	} else if err := j.members(); err != nil {
		return err
	}
	if p.ws(); p.pos < len(p.data) {
		return p.errorf("unexpected data after the object")
	}
	if !j.fields.hasValue {
		return p.errorf(`no "value" (or "payload") field; use null for a tombstone`)
	}
	return nil
}

// members parses the members of the record object up to its closing brace.
func (j *jsonReader) members() error {
	p := &j.scan
	for {
		name, err := p.str()
		if err != nil {
			return err
		}
		if err := p.expect(':', "':' after an object key"); err != nil {
			return err
		}
		if err := j.member(p.bytes(name)); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.errorf("expected ',' or '}'")
		}
	}
}

// member parses the value of the member called name. name points into
// scratch and is read before anything else is decoded.
func (j *jsonReader) member(name []byte) error {
	p, f := &j.scan, &j.fields
	var err error
	switch string(name) {
	case "topic":
		if p.peek() == 'n' {
			f.hasTopic = false
			return p.literal("null")
		}
		f.topic, err = p.str()
		f.hasTopic = err == nil
	case "partition":
		f.partition, f.hasPartition, err = p.integer("partition", -1, math.MaxInt32)
	case "key":
		f.key, err = p.value()
		f.hasKey = err == nil
	case "value", "payload":
		payload := name[0] == 'p'
		if f.hasValue && f.payload != payload {
			return p.errorf(`both "value" and "payload" given`)
		}
		f.value, err = p.value()
		f.hasValue, f.payload = err == nil, payload
	case "timestamp", "ts":
		f.timestamp, f.hasTimestamp, err = p.integer("timestamp", 0, math.MaxInt64)
	case "headers":
		err = j.headerField()
	default:
		err = p.skip()
	}
	return err
}

// fill sets rec from the parsed fields.
func (j *jsonReader) fill(rec *Record) {
	p, f := &j.scan, &j.fields
	if f.hasTopic {
		if t := p.bytes(f.topic); string(t) != j.lastTopic {
			j.lastTopic = string(t)
		}
		rec.Topic = j.shaper.topicOf(j.lastTopic)
	}
	if f.hasPartition && f.partition >= 0 { // -1: the default partition
		rec.Partition = int32(f.partition)
	}
	if f.hasTimestamp {
		rec.Timestamp = time.UnixMilli(f.timestamp)
	}
	j.shaper.shape(rec, p.bytes(f.key), f.hasKey, p.bytes(f.value))
	if len(f.headers) > 0 {
		j.headers = j.headers[:0]
		for _, h := range f.headers {
			j.headers = append(j.headers, protocol.Header{Key: h.key, Value: p.bytes(h.value)})
		}
		j.headers = append(j.headers, j.shaper.headers...)
		rec.Headers = j.headers
	}
}

// headerField parses the headers member: null, an object, a list of
// {"key":..,"value":..} objects or a flat list of keys and values.
func (j *jsonReader) headerField() error {
	p := &j.scan
	j.fields.headers = j.fields.headers[:0]
	switch p.peek() {
	case 'n':
		return p.literal("null")
	case '{':
		return j.headerObject()
	case '[':
		p.pos++
		switch p.peek() {
		case ']':
			p.pos++
			return nil
		case '{':
			return j.headerEntries()
		}
		return j.headerPairs()
	}
	return p.errorf("headers must be an object or a list")
}

// headerObject parses {"k":"v",...}; a list value gives the key once per
// element (kcat's header map form).
func (j *jsonReader) headerObject() error {
	p := &j.scan
	p.pos++
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	for {
		key, err := j.headerKey()
		if err != nil {
			return err
		}
		if err := p.expect(':', "':' after a header key"); err != nil {
			return err
		}
		if p.peek() == '[' {
			err = j.headerValues(key)
		} else {
			err = j.headerValue(key)
		}
		if err != nil {
			return err
		}
		if done, err := j.nextElement('}'); done || err != nil {
			return err
		}
	}
}

// headerValues parses a list of values for one header key.
func (j *jsonReader) headerValues(key string) error {
	p := &j.scan
	p.pos++
	if p.peek() == ']' {
		p.pos++
		return nil
	}
	for {
		if err := j.headerValue(key); err != nil {
			return err
		}
		if done, err := j.nextElement(']'); done || err != nil {
			return err
		}
	}
}

// headerPairs parses the rest of a flat list ["k1","v1","k2","v2"].
func (j *jsonReader) headerPairs() error {
	p := &j.scan
	for {
		key, err := j.headerKey()
		if err != nil {
			return err
		}
		if p.peek() != ',' {
			return p.errorf("expected a value after header key %q (a flat header list holds key, value pairs)", key)
		}
		p.pos++
		if err := j.headerValue(key); err != nil {
			return err
		}
		if done, err := j.nextElement(']'); done || err != nil {
			return err
		}
	}
}

// headerEntries parses the rest of a list of {"key":..,"value":..}.
func (j *jsonReader) headerEntries() error {
	for {
		if err := j.headerEntry(); err != nil {
			return err
		}
		if done, err := j.nextElement(']'); done || err != nil {
			return err
		}
	}
}

// headerEntry parses one {"key":"k","value":"v"}; other fields are ignored
// and a missing value is null.
func (j *jsonReader) headerEntry() error {
	p := &j.scan
	if err := p.expect('{', "a header object"); err != nil {
		return err
	}
	e := headerEntryFields{value: span{null: true}}
	if p.peek() == '}' {
		p.pos++
	} else {
		// Each comma must be followed by a member: `{"key":"k",}` is not JSON.
		for done := false; !done; {
			if err := j.headerEntryMember(&e); err != nil {
				return err
			}
			var err error
			if done, err = j.nextElement('}'); err != nil {
				return err
			}
		}
	}
	if !e.hasKey {
		return p.errorf(`a header object needs a "key"`)
	}
	j.fields.headers = append(j.fields.headers, jsonHeader{key: e.key, value: e.value})
	return nil
}

// headerEntryFields are the fields of a {"key":..,"value":..} header.
type headerEntryFields struct {
	key    string
	hasKey bool
	value  span
}

// headerEntryMember parses one member of a header object into e.
func (j *jsonReader) headerEntryMember(e *headerEntryFields) error {
	p := &j.scan
	name, err := p.str()
	if err == nil {
		err = p.expect(':', "':' after an object key")
	}
	if err != nil {
		return err
	}
	switch string(p.bytes(name)) {
	case "key":
		e.key, err = j.headerKey()
		e.hasKey = err == nil
	case "value":
		e.value, err = p.value()
	default:
		err = p.skip()
	}
	return err
}

// headerKey reads a header key (a string).
func (j *jsonReader) headerKey() (string, error) {
	p := &j.scan
	if p.peek() != '"' {
		return "", p.errorf("a header key must be a string")
	}
	s, err := p.str()
	if err != nil {
		return "", err
	}
	return string(p.bytes(s)), nil
}

// headerValue reads one header value for key.
func (j *jsonReader) headerValue(key string) error {
	v, err := j.scan.value()
	if err != nil {
		return err
	}
	j.fields.headers = append(j.fields.headers, jsonHeader{key: key, value: v})
	return nil
}

// nextElement consumes the ',' between elements, or the closing end. done
// reports the end.
func (j *jsonReader) nextElement(end byte) (done bool, err error) {
	p := &j.scan
	switch p.peek() {
	case ',':
		p.pos++
		return false, nil
	case end:
		p.pos++
		return true, nil
	}
	return false, p.errorf("expected ',' or '%c'", end)
}
