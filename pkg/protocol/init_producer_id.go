package protocol

// InitProducerIdRequest asks for a producer id and epoch (API key 22): a
// new one for an idempotent producer, the transactional id's for a
// transactional one. From v3 a producer that already has an id passes it
// with its epoch to have the epoch bumped (KIP-360).
type InitProducerIdRequest struct {
	TransactionalID      *string
	TransactionTimeoutMs int32
	ProducerID           int64 // v3+, default -1
	ProducerEpoch        int16 // v3+, default -1
}

// Key returns KeyInitProducerId.
func (*InitProducerIdRequest) Key() APIKey { return KeyInitProducerId }

// NewResponse returns an empty InitProducerIdResponse.
func (*InitProducerIdRequest) NewResponse() Response { return new(InitProducerIdResponse) }

// Encode appends the request body at version to w.
func (m *InitProducerIdRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyInitProducerId, version)
	w.NullableString(m.TransactionalID, flex)
	w.Int32(m.TransactionTimeoutMs)
	if version >= 3 {
		w.Int64(m.ProducerID)
		w.Int16(m.ProducerEpoch)
	}
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r.
func (m *InitProducerIdRequest) Decode(r *Reader, version int16) error {
	*m = InitProducerIdRequest{ProducerID: -1, ProducerEpoch: -1}
	if !checkVersion(r, KeyInitProducerId, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyInitProducerId, version)
	m.TransactionalID = r.NullableString(flex)
	m.TransactionTimeoutMs = r.Int32()
	if version >= 3 {
		m.ProducerID = r.Int64()
		m.ProducerEpoch = r.Int16()
	}
	r.TaggedFields(flex)
	return r.Err()
}

// InitProducerIdResponse carries the producer id and epoch to use.
type InitProducerIdResponse struct {
	ThrottleTimeMs int32
	ErrorCode      int16
	ProducerID     int64
	ProducerEpoch  int16
}

// Key returns KeyInitProducerId.
func (*InitProducerIdResponse) Key() APIKey { return KeyInitProducerId }

// ThrottleMillis returns ThrottleTimeMs.
func (m *InitProducerIdResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Encode appends the response body at version to w.
func (m *InitProducerIdResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyInitProducerId, version)
	w.Int32(m.ThrottleTimeMs)
	w.Int16(m.ErrorCode)
	w.Int64(m.ProducerID)
	w.Int16(m.ProducerEpoch)
	w.TaggedFields(flex)
}

// Decode reads the response body at version from r.
func (m *InitProducerIdResponse) Decode(r *Reader, version int16) error {
	*m = InitProducerIdResponse{}
	if !checkVersion(r, KeyInitProducerId, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyInitProducerId, version)
	m.ThrottleTimeMs = r.Int32()
	m.ErrorCode = r.Int16()
	m.ProducerID = r.Int64()
	m.ProducerEpoch = r.Int16()
	r.TaggedFields(flex)
	return r.Err()
}
