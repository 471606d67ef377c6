package protocol

// CreateTopicsVersions is the range of CreateTopics versions kproduce
// speaks (kproduce check --create sends it; ClientVersions returns it).
// Treat it as a constant.
var CreateTopicsVersions = VersionRange{2, 7}

// CreateTopicsRequestAssignment places one partition on brokers.
type CreateTopicsRequestAssignment struct {
	PartitionIndex int32
	BrokerIDs      []int32
}

// CreateTopicsRequestConfig is one topic config to set.
type CreateTopicsRequestConfig struct {
	Name  string
	Value *string
}

// CreateTopicsRequestTopic is one topic to create. NumPartitions and
// ReplicationFactor are -1 with a manual assignment or to use the broker's
// defaults.
type CreateTopicsRequestTopic struct {
	Name              string
	NumPartitions     int32
	ReplicationFactor int16
	Assignments       []CreateTopicsRequestAssignment
	Configs           []CreateTopicsRequestConfig
}

// CreateTopicsRequest creates topics (API key 19).
type CreateTopicsRequest struct {
	Topics       []CreateTopicsRequestTopic
	TimeoutMs    int32
	ValidateOnly bool
}

// Key returns KeyCreateTopics.
func (*CreateTopicsRequest) Key() APIKey { return KeyCreateTopics }

// NewResponse returns an empty CreateTopicsResponse.
func (*CreateTopicsRequest) NewResponse() Response { return new(CreateTopicsResponse) }

// Encode appends the request body at version to w.
func (m *CreateTopicsRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyCreateTopics, version)
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		t := &m.Topics[i]
		w.String(t.Name, flex)
		w.Int32(t.NumPartitions)
		w.Int16(t.ReplicationFactor)
		w.ArrayLen(len(t.Assignments), flex)
		for _, a := range t.Assignments {
			w.Int32(a.PartitionIndex)
			putInt32s(w, a.BrokerIDs, flex)
			w.TaggedFields(flex)
		}
		w.ArrayLen(len(t.Configs), flex)
		for _, c := range t.Configs {
			w.String(c.Name, flex)
			w.NullableString(c.Value, flex)
			w.TaggedFields(flex)
		}
		w.TaggedFields(flex)
	}
	w.Int32(m.TimeoutMs)
	w.Bool(m.ValidateOnly)
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r.
func (m *CreateTopicsRequest) Decode(r *Reader, version int16) error {
	*m = CreateTopicsRequest{}
	if !checkVersion(r, KeyCreateTopics, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyCreateTopics, version)
	n := msgArrayLen(r, flex, minString(flex)+6+2*minArray(flex)+minTags(flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Topics = make([]CreateTopicsRequestTopic, n)
	for i := range m.Topics {
		m.Topics[i].decode(r, flex)
	}
	m.TimeoutMs = r.Int32()
	m.ValidateOnly = r.Bool()
	r.TaggedFields(flex)
	return r.Err()
}

func (t *CreateTopicsRequestTopic) decode(r *Reader, flex bool) {
	t.Name = msgString(r, flex)
	t.NumPartitions = r.Int32()
	t.ReplicationFactor = r.Int16()
	n := msgArrayLen(r, flex, 4+minArray(flex)+minTags(flex))
	if r.Err() != nil {
		return
	}
	t.Assignments = make([]CreateTopicsRequestAssignment, n)
	for i := range t.Assignments {
		a := &t.Assignments[i]
		a.PartitionIndex = r.Int32()
		a.BrokerIDs = msgInt32s(r, flex)
		r.TaggedFields(flex)
	}
	n = msgArrayLen(r, flex, 2*minString(flex)+minTags(flex))
	if r.Err() != nil {
		return
	}
	t.Configs = make([]CreateTopicsRequestConfig, n)
	for i := range t.Configs {
		c := &t.Configs[i]
		c.Name = msgString(r, flex)
		c.Value = r.NullableString(flex)
		r.TaggedFields(flex)
	}
	r.TaggedFields(flex)
}

// CreateTopicsResponseConfig is one config of a created topic (v5+).
type CreateTopicsResponseConfig struct {
	Name         string
	Value        *string
	ReadOnly     bool
	ConfigSource int8 // default -1
	IsSensitive  bool
}

// CreateTopicsResponseTopic is the outcome for one topic.
type CreateTopicsResponseTopic struct {
	Name                 string
	TopicID              [16]byte // v7+
	ErrorCode            int16
	ErrorMessage         *string
	TopicConfigErrorCode int16                        // tag 0, v5+
	NumPartitions        int32                        // v5+, default -1
	ReplicationFactor    int16                        // v5+, default -1
	Configs              []CreateTopicsResponseConfig // v5+, nullable
}

// CreateTopicsResponse answers a CreateTopicsRequest.
type CreateTopicsResponse struct {
	ThrottleTimeMs int32
	Topics         []CreateTopicsResponseTopic
}

// Key returns KeyCreateTopics.
func (*CreateTopicsResponse) Key() APIKey { return KeyCreateTopics }

// ThrottleMillis returns ThrottleTimeMs.
func (m *CreateTopicsResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Encode appends the response body at version to w.
func (m *CreateTopicsResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyCreateTopics, version)
	w.Int32(m.ThrottleTimeMs)
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		m.Topics[i].encode(w, version, flex)
	}
	w.TaggedFields(flex)
}

func (t *CreateTopicsResponseTopic) encode(w *Writer, version int16, flex bool) {
	w.String(t.Name, flex)
	if version >= 7 {
		w.UUID(t.TopicID)
	}
	w.Int16(t.ErrorCode)
	w.NullableString(t.ErrorMessage, flex)
	if version >= 5 {
		w.Int32(t.NumPartitions)
		w.Int16(t.ReplicationFactor)
		if t.Configs == nil {
			w.ArrayLen(-1, flex)
		} else {
			w.ArrayLen(len(t.Configs), flex)
		}
		for _, c := range t.Configs {
			w.String(c.Name, flex)
			w.NullableString(c.Value, flex)
			w.Bool(c.ReadOnly)
			w.Int8(c.ConfigSource)
			w.Bool(c.IsSensitive)
			w.TaggedFields(flex)
		}
	}
	if version < 5 || t.TopicConfigErrorCode == 0 {
		w.TaggedFields(flex)
		return
	}
	w.Uvarint(1)
	putTagHeader(w, 0, 2)
	w.Int16(t.TopicConfigErrorCode)
}

// Decode reads the response body at version from r.
func (m *CreateTopicsResponse) Decode(r *Reader, version int16) error {
	*m = CreateTopicsResponse{}
	if !checkVersion(r, KeyCreateTopics, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyCreateTopics, version)
	m.ThrottleTimeMs = r.Int32()
	n := msgArrayLen(r, flex, minCreateTopicsTopic(version, flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Topics = make([]CreateTopicsResponseTopic, n)
	for i := range m.Topics {
		m.Topics[i].decode(r, version, flex)
	}
	r.TaggedFields(flex)
	return r.Err()
}

// minCreateTopicsTopic is the smallest encoding of a
// CreateTopicsResponseTopic.
func minCreateTopicsTopic(version int16, flex bool) int {
	n := 2*minString(flex) + 2 + minTags(flex)
	if version >= 7 {
		n += 16
	}
	if version >= 5 {
		n += 6 + minArray(flex)
	}
	return n
}

func (t *CreateTopicsResponseTopic) decode(r *Reader, version int16, flex bool) {
	t.Name = msgString(r, flex)
	if version >= 7 {
		t.TopicID = r.UUID()
	}
	t.ErrorCode = r.Int16()
	t.ErrorMessage = r.NullableString(flex)
	t.NumPartitions, t.ReplicationFactor = -1, -1
	if version < 5 {
		r.TaggedFields(flex)
		return
	}
	t.NumPartitions = r.Int32()
	t.ReplicationFactor = r.Int16()
	n := r.ArrayLen(flex, 2*minString(flex)+3+minTags(flex))
	if r.Err() != nil {
		return
	}
	if n >= 0 {
		t.Configs = make([]CreateTopicsResponseConfig, n)
	}
	for i := range t.Configs {
		c := &t.Configs[i]
		c.Name = msgString(r, flex)
		c.Value = r.NullableString(flex)
		c.ReadOnly = r.Bool()
		c.ConfigSource = r.Int8()
		c.IsSensitive = r.Bool()
		r.TaggedFields(flex)
	}
	readTaggedFields(r, func(tag uint32, f *Reader) bool {
		if tag != 0 {
			return false
		}
		t.TopicConfigErrorCode = f.Int16()
		return true
	})
}
