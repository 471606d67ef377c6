package protocol

import "math"

// AuthorizedOperationsOmitted is the value of the authorized-operations
// fields when the broker did not compute them (Kafka's INT32_MIN default).
const AuthorizedOperationsOmitted int32 = math.MinInt32

// MetadataRequestTopic names one topic to describe.
type MetadataRequestTopic struct {
	TopicID [16]byte // v10+
	Name    *string  // nullable from v10 (describe by TopicID); nil is "" before v10
}

// MetadataRequest asks for brokers, the controller and topic metadata (API
// key 3). A nil Topics slice is the null array: all topics. An empty,
// non-nil slice asks for no topics.
type MetadataRequest struct {
	Topics                             []MetadataRequestTopic
	AllowAutoTopicCreation             bool
	IncludeClusterAuthorizedOperations bool // v8-v10
	IncludeTopicAuthorizedOperations   bool // v8+
}

// Key returns KeyMetadata.
func (*MetadataRequest) Key() APIKey { return KeyMetadata }

// NewResponse returns an empty MetadataResponse.
func (*MetadataRequest) NewResponse() Response { return new(MetadataResponse) }

// Encode appends the request body at version to w.
func (m *MetadataRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyMetadata, version)
	if m.Topics == nil {
		w.ArrayLen(-1, flex)
	} else {
		w.ArrayLen(len(m.Topics), flex)
	}
	for i := range m.Topics {
		t := &m.Topics[i]
		if version >= 10 {
			w.UUID(t.TopicID)
			w.NullableString(t.Name, flex)
		} else {
			putStringPtr(w, t.Name, flex)
		}
		w.TaggedFields(flex)
	}
	w.Bool(m.AllowAutoTopicCreation)
	if version >= 8 && version <= 10 {
		w.Bool(m.IncludeClusterAuthorizedOperations)
	}
	if version >= 8 {
		w.Bool(m.IncludeTopicAuthorizedOperations)
	}
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r.
func (m *MetadataRequest) Decode(r *Reader, version int16) error {
	*m = MetadataRequest{}
	if !checkVersion(r, KeyMetadata, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyMetadata, version)
	minTopic := minString(flex) + minTags(flex)
	if version >= 10 {
		minTopic += 16
	}
	n := r.ArrayLen(flex, minTopic)
	if r.Err() != nil {
		return r.Err()
	}
	if n >= 0 {
		m.Topics = make([]MetadataRequestTopic, n)
	}
	for i := range m.Topics {
		t := &m.Topics[i]
		if version >= 10 {
			t.TopicID = r.UUID()
			t.Name = r.NullableString(flex)
		} else {
			t.Name = msgStringPtr(r, flex)
		}
		r.TaggedFields(flex)
	}
	m.AllowAutoTopicCreation = r.Bool()
	if version >= 8 && version <= 10 {
		m.IncludeClusterAuthorizedOperations = r.Bool()
	}
	if version >= 8 {
		m.IncludeTopicAuthorizedOperations = r.Bool()
	}
	r.TaggedFields(flex)
	return r.Err()
}

// MetadataResponseBroker is one broker of the cluster.
type MetadataResponseBroker struct {
	NodeID int32
	Host   string
	Port   int32
	Rack   *string
}

// MetadataResponsePartition is the metadata of one partition.
type MetadataResponsePartition struct {
	ErrorCode       int16
	PartitionIndex  int32
	LeaderID        int32
	LeaderEpoch     int32 // v7+, default -1
	ReplicaNodes    []int32
	IsrNodes        []int32
	OfflineReplicas []int32 // v5+
}

// MetadataResponseTopic is the metadata of one topic.
type MetadataResponseTopic struct {
	ErrorCode                 int16
	Name                      *string  // nullable from v12; nil is "" before v12
	TopicID                   [16]byte // v10+
	IsInternal                bool
	Partitions                []MetadataResponsePartition
	TopicAuthorizedOperations int32 // v8+, default AuthorizedOperationsOmitted
}

// MetadataResponse describes the cluster and the requested topics.
type MetadataResponse struct {
	ThrottleTimeMs              int32
	Brokers                     []MetadataResponseBroker
	ClusterID                   *string
	ControllerID                int32
	Topics                      []MetadataResponseTopic
	ClusterAuthorizedOperations int32 // v8-v10, default AuthorizedOperationsOmitted
}

// Key returns KeyMetadata.
func (*MetadataResponse) Key() APIKey { return KeyMetadata }

// ThrottleMillis returns ThrottleTimeMs.
func (m *MetadataResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Encode appends the response body at version to w.
func (m *MetadataResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyMetadata, version)
	w.Int32(m.ThrottleTimeMs)
	w.ArrayLen(len(m.Brokers), flex)
	for i := range m.Brokers {
		b := &m.Brokers[i]
		w.Int32(b.NodeID)
		w.String(b.Host, flex)
		w.Int32(b.Port)
		w.NullableString(b.Rack, flex)
		w.TaggedFields(flex)
	}
	w.NullableString(m.ClusterID, flex)
	w.Int32(m.ControllerID)
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		m.Topics[i].encode(w, version, flex)
	}
	if version >= 8 && version <= 10 {
		w.Int32(m.ClusterAuthorizedOperations)
	}
	w.TaggedFields(flex)
}

func (t *MetadataResponseTopic) encode(w *Writer, version int16, flex bool) {
	w.Int16(t.ErrorCode)
	if version >= 12 {
		w.NullableString(t.Name, flex)
	} else {
		putStringPtr(w, t.Name, flex)
	}
	if version >= 10 {
		w.UUID(t.TopicID)
	}
	w.Bool(t.IsInternal)
	w.ArrayLen(len(t.Partitions), flex)
	for i := range t.Partitions {
		p := &t.Partitions[i]
		w.Int16(p.ErrorCode)
		w.Int32(p.PartitionIndex)
		w.Int32(p.LeaderID)
		if version >= 7 {
			w.Int32(p.LeaderEpoch)
		}
		putInt32s(w, p.ReplicaNodes, flex)
		putInt32s(w, p.IsrNodes, flex)
		if version >= 5 {
			putInt32s(w, p.OfflineReplicas, flex)
		}
		w.TaggedFields(flex)
	}
	if version >= 8 {
		w.Int32(t.TopicAuthorizedOperations)
	}
	w.TaggedFields(flex)
}

// Decode reads the response body at version from r.
func (m *MetadataResponse) Decode(r *Reader, version int16) error {
	*m = MetadataResponse{ClusterAuthorizedOperations: AuthorizedOperationsOmitted}
	if !checkVersion(r, KeyMetadata, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyMetadata, version)
	m.ThrottleTimeMs = r.Int32()
	n := msgArrayLen(r, flex, 8+2*minString(flex)+minTags(flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Brokers = make([]MetadataResponseBroker, n)
	for i := range m.Brokers {
		b := &m.Brokers[i]
		b.NodeID = r.Int32()
		b.Host = msgString(r, flex)
		b.Port = r.Int32()
		b.Rack = r.NullableString(flex)
		r.TaggedFields(flex)
	}
	m.ClusterID = r.NullableString(flex)
	m.ControllerID = r.Int32()
	n = msgArrayLen(r, flex, minMetadataTopic(version, flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Topics = make([]MetadataResponseTopic, n)
	for i := range m.Topics {
		m.Topics[i].decode(r, version, flex)
	}
	if version >= 8 && version <= 10 {
		m.ClusterAuthorizedOperations = r.Int32()
	}
	r.TaggedFields(flex)
	return r.Err()
}

// minMetadataTopic is the smallest encoding of a MetadataResponseTopic.
func minMetadataTopic(version int16, flex bool) int {
	n := 2 + minString(flex) + 1 + minArray(flex) + minTags(flex)
	if version >= 10 {
		n += 16
	}
	if version >= 8 {
		n += 4
	}
	return n
}

// minMetadataPartition is the smallest encoding of a
// MetadataResponsePartition.
func minMetadataPartition(version int16, flex bool) int {
	n := 10 + 2*minArray(flex) + minTags(flex)
	if version >= 7 {
		n += 4
	}
	if version >= 5 {
		n += minArray(flex)
	}
	return n
}

func (t *MetadataResponseTopic) decode(r *Reader, version int16, flex bool) {
	t.TopicAuthorizedOperations = AuthorizedOperationsOmitted
	t.ErrorCode = r.Int16()
	if version >= 12 {
		t.Name = r.NullableString(flex)
	} else {
		t.Name = msgStringPtr(r, flex)
	}
	if version >= 10 {
		t.TopicID = r.UUID()
	}
	t.IsInternal = r.Bool()
	n := msgArrayLen(r, flex, minMetadataPartition(version, flex))
	if r.Err() != nil {
		return
	}
	t.Partitions = make([]MetadataResponsePartition, n)
	for i := range t.Partitions {
		p := &t.Partitions[i]
		p.ErrorCode = r.Int16()
		p.PartitionIndex = r.Int32()
		p.LeaderID = r.Int32()
		p.LeaderEpoch = -1
		if version >= 7 {
			p.LeaderEpoch = r.Int32()
		}
		p.ReplicaNodes = msgInt32s(r, flex)
		p.IsrNodes = msgInt32s(r, flex)
		if version >= 5 {
			p.OfflineReplicas = msgInt32s(r, flex)
		}
		r.TaggedFields(flex)
	}
	if version >= 8 {
		t.TopicAuthorizedOperations = r.Int32()
	}
	r.TaggedFields(flex)
}
