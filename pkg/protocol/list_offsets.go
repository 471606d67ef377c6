package protocol

// Special timestamps of a ListOffsets partition: the offset the broker
// returns for them rather than the first offset at or after a time.
const (
	// ListOffsetsLatest asks for the high watermark, or the last stable
	// offset under IsolationReadCommitted.
	ListOffsetsLatest int64 = -1
	// ListOffsetsEarliest asks for the log start offset.
	ListOffsetsEarliest int64 = -2
	// ListOffsetsMaxTimestamp (v7+, KIP-734) asks for the offset of the
	// record with the largest timestamp.
	ListOffsetsMaxTimestamp int64 = -3
)

// Isolation levels of ListOffsets and Fetch (KIP-98).
const (
	// IsolationReadUncommitted reads everything up to the high watermark,
	// records of open and aborted transactions included.
	IsolationReadUncommitted int8 = 0
	// IsolationReadCommitted reads up to the last stable offset and tells
	// which transactions were aborted, so their records can be skipped.
	IsolationReadCommitted int8 = 1
)

// ConsumerReplicaID is the replica id of a consumer (not a follower
// broker) in ListOffsets and Fetch.
const ConsumerReplicaID int32 = -1

// ListOffsetsRequestPartition asks for one partition's offset at a
// timestamp (or one of the special timestamps).
type ListOffsetsRequestPartition struct {
	PartitionIndex     int32
	CurrentLeaderEpoch int32 // v4+, default -1: no fencing
	Timestamp          int64
}

// ListOffsetsRequestTopic groups the partitions of one topic.
type ListOffsetsRequestTopic struct {
	Name       string
	Partitions []ListOffsetsRequestPartition
}

// ListOffsetsRequest asks a partition leader for offsets by timestamp (API
// key 2). kproduce speaks v1 and later: v0's list of segment offsets is
// gone from Kafka 4.0.
type ListOffsetsRequest struct {
	ReplicaID      int32 // ConsumerReplicaID
	IsolationLevel int8  // v2+
	Topics         []ListOffsetsRequestTopic
	TimeoutMs      int32 // v10+, default 30000: how long a tiered-storage lookup may take
}

// listOffsetsDefaultTimeoutMs is TimeoutMs when the version has none.
const listOffsetsDefaultTimeoutMs = 30_000

// Key returns KeyListOffsets.
func (*ListOffsetsRequest) Key() APIKey { return KeyListOffsets }

// NewResponse returns an empty ListOffsetsResponse.
func (*ListOffsetsRequest) NewResponse() Response { return new(ListOffsetsResponse) }

// Encode appends the request body at version to w.
func (m *ListOffsetsRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyListOffsets, version)
	w.Int32(m.ReplicaID)
	if version >= 2 {
		w.Int8(m.IsolationLevel)
	}
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		t := &m.Topics[i]
		w.String(t.Name, flex)
		w.ArrayLen(len(t.Partitions), flex)
		for _, p := range t.Partitions {
			w.Int32(p.PartitionIndex)
			if version >= 4 {
				w.Int32(p.CurrentLeaderEpoch)
			}
			w.Int64(p.Timestamp)
			w.TaggedFields(flex)
		}
		w.TaggedFields(flex)
	}
	if version >= 10 {
		w.Int32(m.TimeoutMs)
	}
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r.
func (m *ListOffsetsRequest) Decode(r *Reader, version int16) error {
	*m = ListOffsetsRequest{TimeoutMs: listOffsetsDefaultTimeoutMs}
	if !checkVersion(r, KeyListOffsets, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyListOffsets, version)
	m.ReplicaID = r.Int32()
	if version >= 2 {
		m.IsolationLevel = r.Int8()
	}
	minPart := 4 + 8 + minTags(flex)
	if version >= 4 {
		minPart += 4
	}
	n := msgArrayLen(r, flex, minString(flex)+minArray(flex)+minTags(flex))
	m.Topics = make([]ListOffsetsRequestTopic, n)
	for i := range m.Topics {
		t := &m.Topics[i]
		t.Name = msgString(r, flex)
		t.Partitions = make([]ListOffsetsRequestPartition, msgArrayLen(r, flex, minPart))
		for j := range t.Partitions {
			p := &t.Partitions[j]
			p.PartitionIndex = r.Int32()
			p.CurrentLeaderEpoch = -1
			if version >= 4 {
				p.CurrentLeaderEpoch = r.Int32()
			}
			p.Timestamp = r.Int64()
			r.TaggedFields(flex)
		}
		r.TaggedFields(flex)
	}
	if version >= 10 {
		m.TimeoutMs = r.Int32()
	}
	r.TaggedFields(flex)
	return r.Err()
}

// ListOffsetsResponsePartition is one partition's offset.
type ListOffsetsResponsePartition struct {
	PartitionIndex int32
	ErrorCode      int16
	Timestamp      int64 // the found record's timestamp, -1 for the special timestamps
	Offset         int64 // -1 when none was found
	LeaderEpoch    int32 // v4+, default -1
}

// ListOffsetsResponseTopic groups the partition offsets of one topic.
type ListOffsetsResponseTopic struct {
	Name       string
	Partitions []ListOffsetsResponsePartition
}

// ListOffsetsResponse answers a ListOffsetsRequest.
type ListOffsetsResponse struct {
	ThrottleTimeMs int32 // v2+
	Topics         []ListOffsetsResponseTopic
}

// Key returns KeyListOffsets.
func (*ListOffsetsResponse) Key() APIKey { return KeyListOffsets }

// ThrottleMillis returns ThrottleTimeMs.
func (m *ListOffsetsResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Encode appends the response body at version to w.
func (m *ListOffsetsResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyListOffsets, version)
	if version >= 2 {
		w.Int32(m.ThrottleTimeMs)
	}
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		t := &m.Topics[i]
		w.String(t.Name, flex)
		w.ArrayLen(len(t.Partitions), flex)
		for _, p := range t.Partitions {
			w.Int32(p.PartitionIndex)
			w.Int16(p.ErrorCode)
			w.Int64(p.Timestamp)
			w.Int64(p.Offset)
			if version >= 4 {
				w.Int32(p.LeaderEpoch)
			}
			w.TaggedFields(flex)
		}
		w.TaggedFields(flex)
	}
	w.TaggedFields(flex)
}

// Decode reads the response body at version from r.
func (m *ListOffsetsResponse) Decode(r *Reader, version int16) error {
	*m = ListOffsetsResponse{}
	if !checkVersion(r, KeyListOffsets, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyListOffsets, version)
	if version >= 2 {
		m.ThrottleTimeMs = r.Int32()
	}
	minPart := 4 + 2 + 8 + 8 + minTags(flex)
	if version >= 4 {
		minPart += 4
	}
	n := msgArrayLen(r, flex, minString(flex)+minArray(flex)+minTags(flex))
	m.Topics = make([]ListOffsetsResponseTopic, n)
	for i := range m.Topics {
		t := &m.Topics[i]
		t.Name = msgString(r, flex)
		t.Partitions = make([]ListOffsetsResponsePartition, msgArrayLen(r, flex, minPart))
		for j := range t.Partitions {
			p := &t.Partitions[j]
			p.PartitionIndex = r.Int32()
			p.ErrorCode = r.Int16()
			p.Timestamp = r.Int64()
			p.Offset = r.Int64()
			p.LeaderEpoch = -1
			if version >= 4 {
				p.LeaderEpoch = r.Int32()
			}
			r.TaggedFields(flex)
		}
		r.TaggedFields(flex)
	}
	r.TaggedFields(flex)
	return r.Err()
}
