package protocol

// EndTxnRequest commits or aborts a producer's ongoing transaction (API
// key 26).
type EndTxnRequest struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Committed       bool // true: commit; false: abort
}

// Key returns KeyEndTxn.
func (*EndTxnRequest) Key() APIKey { return KeyEndTxn }

// NewResponse returns an empty EndTxnResponse.
func (*EndTxnRequest) NewResponse() Response { return new(EndTxnResponse) }

// Encode appends the request body at version to w.
func (m *EndTxnRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyEndTxn, version)
	w.String(m.TransactionalID, flex)
	w.Int64(m.ProducerID)
	w.Int16(m.ProducerEpoch)
	w.Bool(m.Committed)
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r.
func (m *EndTxnRequest) Decode(r *Reader, version int16) error {
	*m = EndTxnRequest{}
	if !checkVersion(r, KeyEndTxn, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyEndTxn, version)
	m.TransactionalID = msgString(r, flex)
	m.ProducerID = r.Int64()
	m.ProducerEpoch = r.Int16()
	m.Committed = r.Bool()
	r.TaggedFields(flex)
	return r.Err()
}

// EndTxnResponse is the outcome of an EndTxn request. From v5 (KIP-890)
// the coordinator bumps the producer's epoch at the end of each
// transaction and returns the producer id and epoch to use next; before
// v5 they are -1.
type EndTxnResponse struct {
	ThrottleTimeMs int32
	ErrorCode      int16
	ProducerID     int64 // v5+, default -1
	ProducerEpoch  int16 // v5+, default -1
}

// Key returns KeyEndTxn.
func (*EndTxnResponse) Key() APIKey { return KeyEndTxn }

// ThrottleMillis returns ThrottleTimeMs.
func (m *EndTxnResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Encode appends the response body at version to w.
func (m *EndTxnResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyEndTxn, version)
	w.Int32(m.ThrottleTimeMs)
	w.Int16(m.ErrorCode)
	if version >= 5 {
		w.Int64(m.ProducerID)
		w.Int16(m.ProducerEpoch)
	}
	w.TaggedFields(flex)
}

// Decode reads the response body at version from r.
func (m *EndTxnResponse) Decode(r *Reader, version int16) error {
	*m = EndTxnResponse{ProducerID: -1, ProducerEpoch: -1}
	if !checkVersion(r, KeyEndTxn, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyEndTxn, version)
	m.ThrottleTimeMs = r.Int32()
	m.ErrorCode = r.Int16()
	if version >= 5 {
		m.ProducerID = r.Int64()
		m.ProducerEpoch = r.Int16()
	}
	r.TaggedFields(flex)
	return r.Err()
}
