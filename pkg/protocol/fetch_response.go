package protocol

// FetchResponseAbortedTransaction names a transaction aborted in the
// fetched range: the records of ProducerID from FirstOffset up to its abort
// marker are to be skipped under read_committed.
type FetchResponseAbortedTransaction struct {
	ProducerID  int64
	FirstOffset int64
}

// FetchResponsePartition is the data of one fetched partition.
type FetchResponsePartition struct {
	PartitionIndex   int32
	ErrorCode        int16
	HighWatermark    int64
	LastStableOffset int64 // v4+, default -1
	LogStartOffset   int64 // v5+, default -1
	// CurrentLeader (tag 1, v12+, default -1/-1) is the leader a broker
	// that is not the leader any more knows of (KIP-951).
	CurrentLeader LeaderIDAndEpoch
	// AbortedTransactions (v4+, nullable) are the transactions aborted
	// in the fetched range, under read_committed.
	AbortedTransactions  []FetchResponseAbortedTransaction
	PreferredReadReplica int32 // v11+, default -1
	// Records are the record batches, back to back; the last one may be
	// cut short by the size limits. Decode keeps them by reference to the
	// response's bytes.
	Records []byte
}

// FetchResponseTopic groups the partitions of one topic: by name up to
// v12, by topic id from v13.
type FetchResponseTopic struct {
	Name       string   // v0-v12
	TopicID    [16]byte // v13+
	Partitions []FetchResponsePartition
}

// FetchResponse answers a FetchRequest. The tagged fields a consumer that
// sends no LastFetchedEpoch never gets (DivergingEpoch, SnapshotId) are
// skipped when decoding.
type FetchResponse struct {
	ThrottleTimeMs int32
	ErrorCode      int16 // v7+
	SessionID      int32 // v7+
	Topics         []FetchResponseTopic
	// NodeEndpoints (tag 0, v16+) are the brokers named in CurrentLeader.
	NodeEndpoints []ProduceResponseNodeEndpoint
}

// Key returns KeyFetch.
func (*FetchResponse) Key() APIKey { return KeyFetch }

// ThrottleMillis returns ThrottleTimeMs.
func (m *FetchResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Encode appends the response body at version to w. Records are kept by
// reference when large.
func (m *FetchResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyFetch, version)
	w.Int32(m.ThrottleTimeMs)
	if version >= 7 {
		w.Int16(m.ErrorCode)
		w.Int32(m.SessionID)
	}
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		t := &m.Topics[i]
		putTopicRef(w, t.Name, t.TopicID, version, flex)
		w.ArrayLen(len(t.Partitions), flex)
		for j := range t.Partitions {
			t.Partitions[j].encode(w, version, flex)
		}
		w.TaggedFields(flex)
	}
	if version < 16 || len(m.NodeEndpoints) == 0 {
		w.TaggedFields(flex)
		return
	}
	w.Uvarint(1)
	putTagHeader(w, 0, nodeEndpointsSize(m.NodeEndpoints))
	putNodeEndpoints(w, m.NodeEndpoints)
}

func (p *FetchResponsePartition) encode(w *Writer, version int16, flex bool) {
	w.Int32(p.PartitionIndex)
	w.Int16(p.ErrorCode)
	w.Int64(p.HighWatermark)
	w.Int64(p.LastStableOffset)
	if version >= 5 {
		w.Int64(p.LogStartOffset)
	}
	if p.AbortedTransactions == nil {
		w.ArrayLen(-1, flex) // null
	} else {
		w.ArrayLen(len(p.AbortedTransactions), flex)
	}
	for _, a := range p.AbortedTransactions {
		w.Int64(a.ProducerID)
		w.Int64(a.FirstOffset)
		w.TaggedFields(flex)
	}
	if version >= 11 {
		w.Int32(p.PreferredReadReplica)
	}
	w.NullableBytes(p.Records, flex)
	putLeaderTags(w, flex, flex, 1, p.CurrentLeader)
}

// Decode reads the response body at version from r. Records alias r's
// input.
func (m *FetchResponse) Decode(r *Reader, version int16) error {
	*m = FetchResponse{}
	if !checkVersion(r, KeyFetch, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyFetch, version)
	m.ThrottleTimeMs = r.Int32()
	if version >= 7 {
		m.ErrorCode = r.Int16()
		m.SessionID = r.Int32()
	}
	n := msgArrayLen(r, flex, minTopicRef(version, flex)+minArray(flex)+minTags(flex))
	m.Topics = make([]FetchResponseTopic, n)
	for i := range m.Topics {
		t := &m.Topics[i]
		t.Name, t.TopicID = readTopicRef(r, version, flex)
		t.Partitions = make([]FetchResponsePartition, msgArrayLen(r, flex, minFetchPartition(version, flex)))
		for j := range t.Partitions {
			t.Partitions[j].decode(r, version, flex)
		}
		r.TaggedFields(flex)
	}
	m.NodeEndpoints = readNodeEndpointsTags(r, flex, version >= 16)
	return r.Err()
}

// minFetchPartition is the smallest encoding of a FetchResponsePartition.
func minFetchPartition(version int16, flex bool) int {
	n := 4 + 2 + 8 + 8 + minArray(flex) + minBytes(flex) + minTags(flex)
	if version >= 5 {
		n += 8
	}
	if version >= 11 {
		n += 4
	}
	return n
}

func (p *FetchResponsePartition) decode(r *Reader, version int16, flex bool) {
	p.PartitionIndex = r.Int32()
	p.ErrorCode = r.Int16()
	p.HighWatermark = r.Int64()
	p.LastStableOffset = r.Int64()
	p.LogStartOffset = -1
	if version >= 5 {
		p.LogStartOffset = r.Int64()
	}
	if n := r.ArrayLen(flex, 8+8+minTags(flex)); n >= 0 && r.Err() == nil {
		p.AbortedTransactions = make([]FetchResponseAbortedTransaction, n)
		for i := range p.AbortedTransactions {
			a := &p.AbortedTransactions[i]
			a.ProducerID = r.Int64()
			a.FirstOffset = r.Int64()
			r.TaggedFields(flex)
		}
	}
	p.PreferredReadReplica = -1
	if version >= 11 {
		p.PreferredReadReplica = r.Int32()
	}
	p.Records = r.NullableBytesRef(flex)
	p.CurrentLeader = unknownLeader()
	if !flex {
		return
	}
	readTaggedFields(r, func(tag uint32, f *Reader) bool {
		if tag != 1 {
			return false
		}
		p.CurrentLeader.LeaderID = f.Int32()
		p.CurrentLeader.LeaderEpoch = f.Int32()
		f.TaggedFields(true)
		return true
	})
}
