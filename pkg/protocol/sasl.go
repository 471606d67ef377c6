package protocol

// SaslHandshakeRequest names the SASL mechanism the client wants (API key
// 17). v0 and v1 share one layout; from v1 the SASL exchange that follows is
// framed in SaslAuthenticate requests.
type SaslHandshakeRequest struct {
	Mechanism string
}

// Key returns KeySaslHandshake.
func (*SaslHandshakeRequest) Key() APIKey { return KeySaslHandshake }

// NewResponse returns an empty SaslHandshakeResponse.
func (*SaslHandshakeRequest) NewResponse() Response { return new(SaslHandshakeResponse) }

// Encode appends the request body at version to w.
func (m *SaslHandshakeRequest) Encode(w *Writer, _ int16) {
	w.String(m.Mechanism, false)
}

// Decode reads the request body at version from r.
func (m *SaslHandshakeRequest) Decode(r *Reader, version int16) error {
	*m = SaslHandshakeRequest{}
	if !checkVersion(r, KeySaslHandshake, version) {
		return r.Err()
	}
	m.Mechanism = msgString(r, false)
	return r.Err()
}

// SaslHandshakeResponse lists the mechanisms the broker enables; ErrorCode
// is UNSUPPORTED_SASL_MECHANISM when the requested one is not among them.
type SaslHandshakeResponse struct {
	ErrorCode  int16
	Mechanisms []string
}

// Key returns KeySaslHandshake.
func (*SaslHandshakeResponse) Key() APIKey { return KeySaslHandshake }

// ThrottleMillis returns 0: SaslHandshake responses carry no throttle time.
func (*SaslHandshakeResponse) ThrottleMillis() int32 { return 0 }

// Encode appends the response body at version to w.
func (m *SaslHandshakeResponse) Encode(w *Writer, _ int16) {
	w.Int16(m.ErrorCode)
	w.ArrayLen(len(m.Mechanisms), false)
	for _, s := range m.Mechanisms {
		w.String(s, false)
	}
}

// Decode reads the response body at version from r.
func (m *SaslHandshakeResponse) Decode(r *Reader, version int16) error {
	*m = SaslHandshakeResponse{}
	if !checkVersion(r, KeySaslHandshake, version) {
		return r.Err()
	}
	m.ErrorCode = r.Int16()
	n := msgArrayLen(r, false, minString(false))
	if r.Err() != nil {
		return r.Err()
	}
	m.Mechanisms = make([]string, n)
	for i := range m.Mechanisms {
		m.Mechanisms[i] = msgString(r, false)
	}
	return r.Err()
}

// SaslAuthenticateRequest carries one client message of the SASL exchange
// (API key 36). AuthBytes hold credentials: never log them.
type SaslAuthenticateRequest struct {
	AuthBytes []byte
}

// Key returns KeySaslAuthenticate.
func (*SaslAuthenticateRequest) Key() APIKey { return KeySaslAuthenticate }

// NewResponse returns an empty SaslAuthenticateResponse.
func (*SaslAuthenticateRequest) NewResponse() Response { return new(SaslAuthenticateResponse) }

// Encode appends the request body at version to w.
func (m *SaslAuthenticateRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeySaslAuthenticate, version)
	w.Bytes(m.AuthBytes, flex)
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r; AuthBytes is a copy.
func (m *SaslAuthenticateRequest) Decode(r *Reader, version int16) error {
	*m = SaslAuthenticateRequest{}
	if !checkVersion(r, KeySaslAuthenticate, version) {
		return r.Err()
	}
	flex := IsFlexible(KeySaslAuthenticate, version)
	m.AuthBytes = msgBytes(r, flex)
	r.TaggedFields(flex)
	return r.Err()
}

// SaslAuthenticateResponse carries one server message of the SASL
// exchange, or the reason authentication failed.
type SaslAuthenticateResponse struct {
	ErrorCode         int16
	ErrorMessage      *string
	AuthBytes         []byte
	SessionLifetimeMs int64 // v1+
}

// Key returns KeySaslAuthenticate.
func (*SaslAuthenticateResponse) Key() APIKey { return KeySaslAuthenticate }

// ThrottleMillis returns 0: SaslAuthenticate responses carry no throttle
// time.
func (*SaslAuthenticateResponse) ThrottleMillis() int32 { return 0 }

// Encode appends the response body at version to w.
func (m *SaslAuthenticateResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeySaslAuthenticate, version)
	w.Int16(m.ErrorCode)
	w.NullableString(m.ErrorMessage, flex)
	w.Bytes(m.AuthBytes, flex)
	if version >= 1 {
		w.Int64(m.SessionLifetimeMs)
	}
	w.TaggedFields(flex)
}

// Decode reads the response body at version from r; AuthBytes is a copy.
func (m *SaslAuthenticateResponse) Decode(r *Reader, version int16) error {
	*m = SaslAuthenticateResponse{}
	if !checkVersion(r, KeySaslAuthenticate, version) {
		return r.Err()
	}
	flex := IsFlexible(KeySaslAuthenticate, version)
	m.ErrorCode = r.Int16()
	m.ErrorMessage = r.NullableString(flex)
	m.AuthBytes = msgBytes(r, flex)
	if version >= 1 {
		m.SessionLifetimeMs = r.Int64()
	}
	r.TaggedFields(flex)
	return r.Err()
}
