package protocol

// FetchRequestPartition asks for the records of one partition from an
// offset.
type FetchRequestPartition struct {
	Partition          int32
	CurrentLeaderEpoch int32 // v9+, default -1: no fencing
	FetchOffset        int64
	LastFetchedEpoch   int32 // v12+, default -1
	LogStartOffset     int64 // v5+, followers only, default -1
	PartitionMaxBytes  int32
}

// FetchRequestTopic groups the partitions of one topic: by name up to v12,
// by topic id from v13 (KIP-516).
type FetchRequestTopic struct {
	Name       string   // v0-v12
	TopicID    [16]byte // v13+
	Partitions []FetchRequestPartition
}

// FetchRequestForgottenTopic names partitions an incremental fetch session
// drops (v7+).
type FetchRequestForgottenTopic struct {
	Name       string   // v7-v12
	TopicID    [16]byte // v13+
	Partitions []int32
}

// FetchRequest reads records from partition leaders (API key 1). kproduce
// speaks v4 and later: record batches v2, isolation levels and the aborted
// transactions of read_committed. It never opens a fetch session
// (SessionID 0, SessionEpoch -1: a full fetch each time).
//
// The tagged fields a consumer leaves at their defaults (ClusterId,
// ReplicaState, ReplicaDirectoryId, HighWatermark) are not modelled:
// Encode writes none and Decode skips them.
type FetchRequest struct {
	ReplicaID       int32 // v0-v14, ConsumerReplicaID
	MaxWaitMs       int32
	MinBytes        int32
	MaxBytes        int32 // v3+
	IsolationLevel  int8  // v4+
	SessionID       int32 // v7+
	SessionEpoch    int32 // v7+, -1: no session
	Topics          []FetchRequestTopic
	ForgottenTopics []FetchRequestForgottenTopic // v7+
	RackID          string                       // v11+
}

// Key returns KeyFetch.
func (*FetchRequest) Key() APIKey { return KeyFetch }

// NewResponse returns an empty FetchResponse.
func (*FetchRequest) NewResponse() Response { return new(FetchResponse) }

// AllowedVersions caps the request at v12 when a topic has no id: from v13
// topics are named by id only.
func (m *FetchRequest) AllowedVersions() VersionRange {
	vr := messageVersions(KeyFetch)
	for i := range m.Topics {
		if m.Topics[i].TopicID == ([16]byte{}) {
			vr.Max = fetchLastTopicNameVersion
		}
	}
	return vr
}

// fetchLastTopicNameVersion is the last Fetch version that names topics.
const fetchLastTopicNameVersion = 12

// Encode appends the request body at version to w.
func (m *FetchRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyFetch, version)
	if version <= 14 {
		w.Int32(m.ReplicaID)
	}
	w.Int32(m.MaxWaitMs)
	w.Int32(m.MinBytes)
	w.Int32(m.MaxBytes)
	w.Int8(m.IsolationLevel)
	if version >= 7 {
		w.Int32(m.SessionID)
		w.Int32(m.SessionEpoch)
	}
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		t := &m.Topics[i]
		putTopicRef(w, t.Name, t.TopicID, version, flex)
		w.ArrayLen(len(t.Partitions), flex)
		for _, p := range t.Partitions {
			w.Int32(p.Partition)
			if version >= 9 {
				w.Int32(p.CurrentLeaderEpoch)
			}
			w.Int64(p.FetchOffset)
			if version >= 12 {
				w.Int32(p.LastFetchedEpoch)
			}
			if version >= 5 {
				w.Int64(p.LogStartOffset)
			}
			w.Int32(p.PartitionMaxBytes)
			w.TaggedFields(flex)
		}
		w.TaggedFields(flex)
	}
	if version >= 7 {
		w.ArrayLen(len(m.ForgottenTopics), flex)
		for i := range m.ForgottenTopics {
			t := &m.ForgottenTopics[i]
			putTopicRef(w, t.Name, t.TopicID, version, flex)
			putInt32s(w, t.Partitions, flex)
			w.TaggedFields(flex)
		}
	}
	if version >= 11 {
		w.String(m.RackID, flex)
	}
	w.TaggedFields(flex)
}

// putTopicRef writes a topic's name (up to v12) or id (v13+).
func putTopicRef(w *Writer, name string, id [16]byte, version int16, flex bool) {
	if version > fetchLastTopicNameVersion {
		w.UUID(id)
		return
	}
	w.String(name, flex)
}

// readTopicRef reads what putTopicRef writes.
func readTopicRef(r *Reader, version int16, flex bool) (name string, id [16]byte) {
	if version > fetchLastTopicNameVersion {
		return "", r.UUID()
	}
	return msgString(r, flex), id
}

// minTopicRef is the smallest encoding of a topic name or id.
func minTopicRef(version int16, flex bool) int {
	if version > fetchLastTopicNameVersion {
		return 16
	}
	return minString(flex)
}

// Decode reads the request body at version from r.
func (m *FetchRequest) Decode(r *Reader, version int16) error {
	*m = FetchRequest{ReplicaID: ConsumerReplicaID, SessionEpoch: -1}
	if !checkVersion(r, KeyFetch, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyFetch, version)
	if version <= 14 {
		m.ReplicaID = r.Int32()
	}
	m.MaxWaitMs = r.Int32()
	m.MinBytes = r.Int32()
	m.MaxBytes = r.Int32()
	m.IsolationLevel = r.Int8()
	if version >= 7 {
		m.SessionID = r.Int32()
		m.SessionEpoch = r.Int32()
	}
	n := msgArrayLen(r, flex, minTopicRef(version, flex)+minArray(flex)+minTags(flex))
	m.Topics = make([]FetchRequestTopic, n)
	for i := range m.Topics {
		t := &m.Topics[i]
		t.Name, t.TopicID = readTopicRef(r, version, flex)
		t.Partitions = make([]FetchRequestPartition, msgArrayLen(r, flex, 4+8+4+minTags(flex)))
		for j := range t.Partitions {
			p := &t.Partitions[j]
			p.Partition = r.Int32()
			p.CurrentLeaderEpoch, p.LastFetchedEpoch = -1, -1
			if version >= 9 {
				p.CurrentLeaderEpoch = r.Int32()
			}
			p.FetchOffset = r.Int64()
			if version >= 12 {
				p.LastFetchedEpoch = r.Int32()
			}
			p.LogStartOffset = -1
			if version >= 5 {
				p.LogStartOffset = r.Int64()
			}
			p.PartitionMaxBytes = r.Int32()
			r.TaggedFields(flex)
		}
		r.TaggedFields(flex)
	}
	if version >= 7 {
		n := msgArrayLen(r, flex, minTopicRef(version, flex)+minArray(flex)+minTags(flex))
		m.ForgottenTopics = make([]FetchRequestForgottenTopic, n)
		for i := range m.ForgottenTopics {
			t := &m.ForgottenTopics[i]
			t.Name, t.TopicID = readTopicRef(r, version, flex)
			t.Partitions = msgInt32s(r, flex)
			r.TaggedFields(flex)
		}
	}
	if version >= 11 {
		m.RackID = msgString(r, flex)
	}
	r.TaggedFields(flex)
	return r.Err()
}
