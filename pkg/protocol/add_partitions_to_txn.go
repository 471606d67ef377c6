package protocol

// AddPartitionsToTxnRequest adds partitions to a producer's ongoing
// transaction (API key 24), before the first batch to each is produced.
// kproduce speaks v0-v3; v4+ is the brokers' batched form (KIP-890).
type AddPartitionsToTxnRequest struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Topics          []AddPartitionsToTxnTopic
}

// AddPartitionsToTxnTopic names partitions of one topic.
type AddPartitionsToTxnTopic struct {
	Name       string
	Partitions []int32
}

// Key returns KeyAddPartitionsToTxn.
func (*AddPartitionsToTxnRequest) Key() APIKey { return KeyAddPartitionsToTxn }

// NewResponse returns an empty AddPartitionsToTxnResponse.
func (*AddPartitionsToTxnRequest) NewResponse() Response { return new(AddPartitionsToTxnResponse) }

// Encode appends the request body at version to w.
func (m *AddPartitionsToTxnRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyAddPartitionsToTxn, version)
	w.String(m.TransactionalID, flex)
	w.Int64(m.ProducerID)
	w.Int16(m.ProducerEpoch)
	w.ArrayLen(len(m.Topics), flex)
	for i := range m.Topics {
		t := &m.Topics[i]
		w.String(t.Name, flex)
		putInt32s(w, t.Partitions, flex)
		w.TaggedFields(flex)
	}
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r.
func (m *AddPartitionsToTxnRequest) Decode(r *Reader, version int16) error {
	*m = AddPartitionsToTxnRequest{}
	if !checkVersion(r, KeyAddPartitionsToTxn, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyAddPartitionsToTxn, version)
	m.TransactionalID = msgString(r, flex)
	m.ProducerID = r.Int64()
	m.ProducerEpoch = r.Int16()
	n := msgArrayLen(r, flex, minString(flex)+minArray(flex)+minTags(flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Topics = make([]AddPartitionsToTxnTopic, n)
	for i := range m.Topics {
		t := &m.Topics[i]
		t.Name = msgString(r, flex)
		t.Partitions = msgInt32s(r, flex)
		r.TaggedFields(flex)
	}
	r.TaggedFields(flex)
	return r.Err()
}

// AddPartitionsToTxnResponse has an error code per partition asked for.
type AddPartitionsToTxnResponse struct {
	ThrottleTimeMs int32
	Results        []AddPartitionsToTxnTopicResult
}

// AddPartitionsToTxnTopicResult holds the results of one topic's partitions.
type AddPartitionsToTxnTopicResult struct {
	Name    string
	Results []AddPartitionsToTxnPartitionResult
}

// AddPartitionsToTxnPartitionResult is one partition's error code.
type AddPartitionsToTxnPartitionResult struct {
	PartitionIndex     int32
	PartitionErrorCode int16
}

// Key returns KeyAddPartitionsToTxn.
func (*AddPartitionsToTxnResponse) Key() APIKey { return KeyAddPartitionsToTxn }

// ThrottleMillis returns ThrottleTimeMs.
func (m *AddPartitionsToTxnResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Encode appends the response body at version to w.
func (m *AddPartitionsToTxnResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyAddPartitionsToTxn, version)
	w.Int32(m.ThrottleTimeMs)
	w.ArrayLen(len(m.Results), flex)
	for i := range m.Results {
		t := &m.Results[i]
		w.String(t.Name, flex)
		w.ArrayLen(len(t.Results), flex)
		for _, p := range t.Results {
			w.Int32(p.PartitionIndex)
			w.Int16(p.PartitionErrorCode)
			w.TaggedFields(flex)
		}
		w.TaggedFields(flex)
	}
	w.TaggedFields(flex)
}

// Decode reads the response body at version from r.
func (m *AddPartitionsToTxnResponse) Decode(r *Reader, version int16) error {
	*m = AddPartitionsToTxnResponse{}
	if !checkVersion(r, KeyAddPartitionsToTxn, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyAddPartitionsToTxn, version)
	m.ThrottleTimeMs = r.Int32()
	n := msgArrayLen(r, flex, minString(flex)+minArray(flex)+minTags(flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Results = make([]AddPartitionsToTxnTopicResult, n)
	for i := range m.Results {
		t := &m.Results[i]
		t.Name = msgString(r, flex)
		np := msgArrayLen(r, flex, 6+minTags(flex))
		if r.Err() != nil {
			return r.Err()
		}
		t.Results = make([]AddPartitionsToTxnPartitionResult, np)
		for j := range t.Results {
			t.Results[j].PartitionIndex = r.Int32()
			t.Results[j].PartitionErrorCode = r.Int16()
			r.TaggedFields(flex)
		}
		r.TaggedFields(flex)
	}
	r.TaggedFields(flex)
	return r.Err()
}
