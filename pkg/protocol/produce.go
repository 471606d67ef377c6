package protocol

// ProduceRequestPartition carries one record batch (or several, back to
// back) for one partition.
type ProduceRequestPartition struct {
	Index   int32
	Records []byte // nullable; kept by reference when encoding
}

// ProduceRequestTopic groups the partitions of one topic.
type ProduceRequestTopic struct {
	Name       string
	Partitions []ProduceRequestPartition
}

// ProduceRequest writes record batches (API key 0). With Acks 0 the broker
// sends no response.
type ProduceRequest struct {
	TransactionalID *string
	Acks            int16
	TimeoutMs       int32
	Topics          []ProduceRequestTopic
	// Response, when set, is what NewResponse returns, for the answer to
	// be decoded into over its earlier content (its slices are reused): a
	// producer that recycles its requests recycles their responses with
	// them. It is not part of the request's encoding.
	Response *ProduceResponse
}

// Key returns KeyProduce.
func (*ProduceRequest) Key() APIKey { return KeyProduce }

// NewResponse returns m.Response, or a new ProduceResponse.
func (m *ProduceRequest) NewResponse() Response {
	if m.Response != nil {
		return m.Response
	}
	return new(ProduceResponse)
}

// Encode appends the request body at version to w. It is on the hot path:
// it allocates nothing beyond growing w, and the record batches are kept by
// reference (Writer.Ref) so the request can be written with one vectored
// write. The batches must not change until w's output has been written.
func (m *ProduceRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyProduce, version)
	w.NullableString(m.TransactionalID, flex)
	w.Int16(m.Acks)
	w.Int32(m.TimeoutMs)
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		t := &m.Topics[i]
		w.String(t.Name, flex)
		w.ArrayLen(len(t.Partitions), flex)
		for j := range t.Partitions {
			p := &t.Partitions[j]
			w.Int32(p.Index)
			w.NullableBytes(p.Records, flex)
			w.TaggedFields(flex)
		}
		w.TaggedFields(flex)
	}
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r. Records are copied out
// of r's input.
func (m *ProduceRequest) Decode(r *Reader, version int16) error {
	*m = ProduceRequest{}
	if !checkVersion(r, KeyProduce, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyProduce, version)
	m.TransactionalID = r.NullableString(flex)
	m.Acks = r.Int16()
	m.TimeoutMs = r.Int32()
	n := msgArrayLen(r, flex, minString(flex)+minArray(flex)+minTags(flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Topics = make([]ProduceRequestTopic, n)
	for i := range m.Topics {
		t := &m.Topics[i]
		t.Name = msgString(r, flex)
		np := msgArrayLen(r, flex, 4+minBytes(flex)+minTags(flex))
		if r.Err() != nil {
			return r.Err()
		}
		t.Partitions = make([]ProduceRequestPartition, np)
		for j := range t.Partitions {
			p := &t.Partitions[j]
			p.Index = r.Int32()
			p.Records = r.NullableBytes(flex)
			r.TaggedFields(flex)
		}
		r.TaggedFields(flex)
	}
	r.TaggedFields(flex)
	return r.Err()
}

// LeaderIDAndEpoch is a partition's current leader as a broker knows it.
// Both fields are -1 when unknown.
type LeaderIDAndEpoch struct {
	LeaderID    int32
	LeaderEpoch int32
}

// unknownLeader returns LeaderIDAndEpoch's default.
func unknownLeader() LeaderIDAndEpoch { return LeaderIDAndEpoch{LeaderID: -1, LeaderEpoch: -1} }

// putLeaderTags writes a partition's tagged-field section (none unless
// flex): empty, or, when the version has the field (withLeader) and the
// leader is known, the one field tag holding it (KIP-951's CurrentLeader
// in Produce and Fetch responses).
func putLeaderTags(w *Writer, flex, withLeader bool, tag uint32, leader LeaderIDAndEpoch) {
	if !withLeader || leader == unknownLeader() {
		w.TaggedFields(flex)
		return
	}
	w.Uvarint(1)
	putTagHeader(w, tag, 9) // two int32 and an empty tagged-field section
	w.Int32(leader.LeaderID)
	w.Int32(leader.LeaderEpoch)
	w.TaggedFields(true)
}

// ProduceResponseRecordError names one record that made the broker drop
// its batch (KIP-467).
type ProduceResponseRecordError struct {
	BatchIndex             int32
	BatchIndexErrorMessage *string
}

// ProduceResponsePartition is the outcome of one partition's batch.
type ProduceResponsePartition struct {
	Index           int32
	ErrorCode       int16
	BaseOffset      int64
	LogAppendTimeMs int64                        // v2+, default -1
	LogStartOffset  int64                        // v5+, default -1
	RecordErrors    []ProduceResponseRecordError // v8+
	ErrorMessage    *string                      // v8+
	CurrentLeader   LeaderIDAndEpoch             // tag 0, v10+, default -1/-1
}

// ProduceResponseTopic groups the partition outcomes of one topic.
type ProduceResponseTopic struct {
	Name       string
	Partitions []ProduceResponsePartition
}

// ProduceResponseNodeEndpoint is the address of a broker named as a new
// leader in CurrentLeader (KIP-951).
type ProduceResponseNodeEndpoint struct {
	NodeID int32
	Host   string
	Port   int32
	Rack   *string
}

// ProduceResponse answers a ProduceRequest with acks 1 or -1.
type ProduceResponse struct {
	Topics         []ProduceResponseTopic
	ThrottleTimeMs int32
	NodeEndpoints  []ProduceResponseNodeEndpoint // tag 0, v10+
}

// Key returns KeyProduce.
func (*ProduceResponse) Key() APIKey { return KeyProduce }

// ThrottleMillis returns ThrottleTimeMs.
func (m *ProduceResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Encode appends the response body at version to w. The tagged fields are
// written only when they differ from their defaults.
func (m *ProduceResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyProduce, version)
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		t := &m.Topics[i]
		w.String(t.Name, flex)
		w.ArrayLen(len(t.Partitions), flex)
		for j := range t.Partitions {
			t.Partitions[j].encode(w, version, flex)
		}
		w.TaggedFields(flex)
	}
	w.Int32(m.ThrottleTimeMs)
	if version < 10 || len(m.NodeEndpoints) == 0 {
		w.TaggedFields(flex)
		return
	}
	w.Uvarint(1)
	putTagHeader(w, 0, nodeEndpointsSize(m.NodeEndpoints))
	putNodeEndpoints(w, m.NodeEndpoints)
}

// putNodeEndpoints writes the body of a NodeEndpoints tagged field.
func putNodeEndpoints(w *Writer, eps []ProduceResponseNodeEndpoint) {
	w.ArrayLen(len(eps), true)
	for i := range eps {
		e := &eps[i]
		w.Int32(e.NodeID)
		w.String(e.Host, true)
		w.Int32(e.Port)
		w.NullableString(e.Rack, true)
		w.TaggedFields(true)
	}
}

// nodeEndpointsSize is the encoded size of the NodeEndpoints tagged field.
func nodeEndpointsSize(eps []ProduceResponseNodeEndpoint) int {
	n := uvarintLen(uint64(len(eps)) + 1)
	for i := range eps {
		n += 4 + compactStringSize(eps[i].Host) + 4 + compactNullableStringSize(eps[i].Rack) + 1
	}
	return n
}

func (p *ProduceResponsePartition) encode(w *Writer, version int16, flex bool) {
	w.Int32(p.Index)
	w.Int16(p.ErrorCode)
	w.Int64(p.BaseOffset)
	w.Int64(p.LogAppendTimeMs)
	if version >= 5 {
		w.Int64(p.LogStartOffset)
	}
	if version >= 8 {
		w.ArrayLen(len(p.RecordErrors), flex)
		for _, e := range p.RecordErrors {
			w.Int32(e.BatchIndex)
			w.NullableString(e.BatchIndexErrorMessage, flex)
			w.TaggedFields(flex)
		}
		w.NullableString(p.ErrorMessage, flex)
	}
	putLeaderTags(w, flex, version >= 10, 0, p.CurrentLeader)
}

// Decode reads the response body at version from r. It overwrites m,
// reusing the capacity of its topic and partition lists (see
// ProduceRequest.Response).
func (m *ProduceResponse) Decode(r *Reader, version int16) error {
	topics := m.Topics[:cap(m.Topics)]
	*m = ProduceResponse{}
	if !checkVersion(r, KeyProduce, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyProduce, version)
	n := msgArrayLen(r, flex, minString(flex)+minArray(flex)+minTags(flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Topics = reuse(topics, n)
	for i := range m.Topics {
		t := &m.Topics[i]
		parts := t.Partitions[:cap(t.Partitions)]
		*t = ProduceResponseTopic{Name: msgString(r, flex)}
		np := msgArrayLen(r, flex, minProducePartition(version, flex))
		if r.Err() != nil {
			return r.Err()
		}
		t.Partitions = reuse(parts, np)
		for j := range t.Partitions {
			t.Partitions[j] = ProduceResponsePartition{}
			t.Partitions[j].decode(r, version, flex)
		}
		r.TaggedFields(flex)
	}
	m.ThrottleTimeMs = r.Int32()
	m.NodeEndpoints = readNodeEndpointsTags(r, flex, version >= 10)
	return r.Err()
}

// reuse returns n elements of s's memory when it has room (their content
// is the caller's to overwrite), else n new ones.
func reuse[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s[:n]
	}
	return make([]T, n)
}

// minProducePartition is the smallest encoding of a
// ProduceResponsePartition.
func minProducePartition(version int16, flex bool) int {
	n := 4 + 2 + 8 + 8 + minTags(flex)
	if version >= 5 {
		n += 8
	}
	if version >= 8 {
		n += minArray(flex) + minString(flex)
	}
	return n
}

func (p *ProduceResponsePartition) decode(r *Reader, version int16, flex bool) {
	p.Index = r.Int32()
	p.ErrorCode = r.Int16()
	p.BaseOffset = r.Int64()
	p.LogAppendTimeMs = r.Int64()
	p.LogStartOffset = -1
	if version >= 5 {
		p.LogStartOffset = r.Int64()
	}
	if version >= 8 {
		n := msgArrayLen(r, flex, 4+minString(flex)+minTags(flex))
		if r.Err() != nil {
			return
		}
		p.RecordErrors = make([]ProduceResponseRecordError, n)
		for i := range p.RecordErrors {
			e := &p.RecordErrors[i]
			e.BatchIndex = r.Int32()
			e.BatchIndexErrorMessage = r.NullableString(flex)
			r.TaggedFields(flex)
		}
		p.ErrorMessage = r.NullableString(flex)
	}
	p.CurrentLeader = unknownLeader()
	if version < 10 {
		r.TaggedFields(flex)
		return
	}
	readTaggedFields(r, func(tag uint32, f *Reader) bool {
		if tag != 0 {
			return false
		}
		p.CurrentLeader.LeaderID = f.Int32()
		p.CurrentLeader.LeaderEpoch = f.Int32()
		f.TaggedFields(true)
		return true
	})
}

// readNodeEndpointsTags reads a response's closing tagged-field section
// (none unless flex) and returns its NodeEndpoints field (tag 0), which
// versions with withEndpoints may carry (KIP-951, Produce and Fetch).
func readNodeEndpointsTags(r *Reader, flex, withEndpoints bool) []ProduceResponseNodeEndpoint {
	if !withEndpoints {
		r.TaggedFields(flex)
		return nil
	}
	var eps []ProduceResponseNodeEndpoint
	readTaggedFields(r, func(tag uint32, f *Reader) bool {
		if tag != 0 {
			return false
		}
		eps = decodeNodeEndpoints(f)
		return true
	})
	return eps
}

// decodeNodeEndpoints reads the NodeEndpoints tagged field. An empty array
// decodes as nil, its default.
func decodeNodeEndpoints(f *Reader) []ProduceResponseNodeEndpoint {
	n := msgArrayLen(f, true, 4+1+4+1+1)
	if f.Err() != nil || n == 0 {
		return nil
	}
	eps := make([]ProduceResponseNodeEndpoint, n)
	for i := range eps {
		e := &eps[i]
		e.NodeID = f.Int32()
		e.Host = msgString(f, true)
		e.Port = f.Int32()
		e.Rack = f.NullableString(true)
		f.TaggedFields(true)
	}
	return eps
}
