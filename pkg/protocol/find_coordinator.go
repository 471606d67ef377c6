package protocol

// Coordinator key types of a FindCoordinator request.
const (
	CoordinatorKeyTypeGroup       int8 = 0
	CoordinatorKeyTypeTransaction int8 = 1
)

// FindCoordinatorRequest asks which broker coordinates a group or a
// transactional id (API key 10). Up to v3 it names one CoordinatorKey; from
// v4 (KIP-699) a list, CoordinatorKeys. A client that does not know the
// version it will be sent at sets both (see NewFindCoordinatorRequest):
// Encode writes the one the version has.
type FindCoordinatorRequest struct {
	CoordinatorKey  string   // v0-v3
	KeyType         int8     // v1+: CoordinatorKeyTypeGroup or CoordinatorKeyTypeTransaction
	CoordinatorKeys []string // v4+
}

// NewFindCoordinatorRequest asks for the coordinator of one key, in the
// form of every version.
func NewFindCoordinatorRequest(keyType int8, key string) *FindCoordinatorRequest {
	return &FindCoordinatorRequest{CoordinatorKey: key, KeyType: keyType, CoordinatorKeys: []string{key}}
}

// Key returns KeyFindCoordinator.
func (*FindCoordinatorRequest) Key() APIKey { return KeyFindCoordinator }

// NewResponse returns an empty FindCoordinatorResponse.
func (*FindCoordinatorRequest) NewResponse() Response { return new(FindCoordinatorResponse) }

// Encode appends the request body at version to w.
func (m *FindCoordinatorRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyFindCoordinator, version)
	if version <= 3 {
		w.String(m.CoordinatorKey, flex)
	}
	if version >= 1 {
		w.Int8(m.KeyType)
	}
	if version >= 4 {
		w.ArrayLen(len(m.CoordinatorKeys), flex)
		for _, k := range m.CoordinatorKeys {
			w.String(k, flex)
		}
	}
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r.
func (m *FindCoordinatorRequest) Decode(r *Reader, version int16) error {
	*m = FindCoordinatorRequest{}
	if !checkVersion(r, KeyFindCoordinator, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyFindCoordinator, version)
	if version <= 3 {
		m.CoordinatorKey = msgString(r, flex)
	}
	if version >= 1 {
		m.KeyType = r.Int8()
	}
	if version >= 4 {
		n := msgArrayLen(r, flex, minString(flex))
		if r.Err() != nil {
			return r.Err()
		}
		m.CoordinatorKeys = make([]string, n)
		for i := range m.CoordinatorKeys {
			m.CoordinatorKeys[i] = msgString(r, flex)
		}
	}
	r.TaggedFields(flex)
	return r.Err()
}

// FindCoordinatorResponse names the coordinator: up to v3 in its top-level
// fields, from v4 one entry of Coordinators per key asked for. Use
// Coordinator to read it whatever the version.
type FindCoordinatorResponse struct {
	ThrottleTimeMs int32                                // v1+
	ErrorCode      int16                                // v0-v3
	ErrorMessage   *string                              // v1-v3
	NodeID         int32                                // v0-v3
	Host           string                               // v0-v3
	Port           int32                                // v0-v3
	Coordinators   []FindCoordinatorResponseCoordinator // v4+
}

// FindCoordinatorResponseCoordinator is the coordinator of one key (v4+).
type FindCoordinatorResponseCoordinator struct {
	Key          string
	NodeID       int32
	Host         string
	Port         int32
	ErrorCode    int16
	ErrorMessage *string
}

// Key returns KeyFindCoordinator.
func (*FindCoordinatorResponse) Key() APIKey { return KeyFindCoordinator }

// ThrottleMillis returns ThrottleTimeMs.
func (m *FindCoordinatorResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Coordinator returns the answer for key: the entry of Coordinators that
// names it, or, when there is none (a response up to v3), the top-level
// fields. ok is false when a v4+ response has no entry for key.
func (m *FindCoordinatorResponse) Coordinator(key string) (c FindCoordinatorResponseCoordinator, ok bool) {
	for _, c := range m.Coordinators {
		if c.Key == key {
			return c, true
		}
	}
	if len(m.Coordinators) > 0 {
		return c, false
	}
	return FindCoordinatorResponseCoordinator{Key: key, NodeID: m.NodeID, Host: m.Host, Port: m.Port,
		ErrorCode: m.ErrorCode, ErrorMessage: m.ErrorMessage}, true
}

// Encode appends the response body at version to w.
func (m *FindCoordinatorResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyFindCoordinator, version)
	if version >= 1 {
		w.Int32(m.ThrottleTimeMs)
	}
	if version <= 3 {
		w.Int16(m.ErrorCode)
		if version >= 1 {
			w.NullableString(m.ErrorMessage, flex)
		}
		w.Int32(m.NodeID)
		w.String(m.Host, flex)
		w.Int32(m.Port)
	} else {
		w.ArrayLen(len(m.Coordinators), flex)
		for i := range m.Coordinators {
			c := &m.Coordinators[i]
			w.String(c.Key, flex)
			w.Int32(c.NodeID)
			w.String(c.Host, flex)
			w.Int32(c.Port)
			w.Int16(c.ErrorCode)
			w.NullableString(c.ErrorMessage, flex)
			w.TaggedFields(flex)
		}
	}
	w.TaggedFields(flex)
}

// Decode reads the response body at version from r.
func (m *FindCoordinatorResponse) Decode(r *Reader, version int16) error {
	*m = FindCoordinatorResponse{}
	if !checkVersion(r, KeyFindCoordinator, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyFindCoordinator, version)
	if version >= 1 {
		m.ThrottleTimeMs = r.Int32()
	}
	if version <= 3 {
		m.ErrorCode = r.Int16()
		if version >= 1 {
			m.ErrorMessage = r.NullableString(flex)
		}
		m.NodeID = r.Int32()
		m.Host = msgString(r, flex)
		m.Port = r.Int32()
		r.TaggedFields(flex)
		return r.Err()
	}
	// key, node, host, port, error code, error message, tags
	n := msgArrayLen(r, flex, minString(flex)+4+minString(flex)+4+2+minString(flex)+minTags(flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.Coordinators = make([]FindCoordinatorResponseCoordinator, n)
	for i := range m.Coordinators {
		c := &m.Coordinators[i]
		c.Key = msgString(r, flex)
		c.NodeID = r.Int32()
		c.Host = msgString(r, flex)
		c.Port = r.Int32()
		c.ErrorCode = r.Int16()
		c.ErrorMessage = r.NullableString(flex)
		r.TaggedFields(flex)
	}
	r.TaggedFields(flex)
	return r.Err()
}
