package protocol

import "fmt"

// ApiVersionsRequest asks a broker which versions of each API it serves
// (API key 18). It is the first request on every connection.
type ApiVersionsRequest struct {
	ClientSoftwareName    string // v3+
	ClientSoftwareVersion string // v3+
}

// Key returns KeyApiVersions.
func (*ApiVersionsRequest) Key() APIKey { return KeyApiVersions }

// NewResponse returns an empty ApiVersionsResponse.
func (*ApiVersionsRequest) NewResponse() Response { return new(ApiVersionsResponse) }

// Encode appends the request body at version to w.
func (m *ApiVersionsRequest) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyApiVersions, version)
	if version >= 3 {
		w.String(m.ClientSoftwareName, flex)
		w.String(m.ClientSoftwareVersion, flex)
	}
	w.TaggedFields(flex)
}

// Decode reads the request body at version from r.
func (m *ApiVersionsRequest) Decode(r *Reader, version int16) error {
	*m = ApiVersionsRequest{}
	if !checkVersion(r, KeyApiVersions, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyApiVersions, version)
	if version >= 3 {
		m.ClientSoftwareName = msgString(r, flex)
		m.ClientSoftwareVersion = msgString(r, flex)
	}
	r.TaggedFields(flex)
	return r.Err()
}

// ApiVersionsResponseKey is the version range a broker serves for one API.
type ApiVersionsResponseKey struct {
	ApiKey     int16
	MinVersion int16
	MaxVersion int16
}

// ApiVersionsResponse lists the APIs a broker serves. The v3 tagged fields
// (SupportedFeatures, FinalizedFeaturesEpoch, FinalizedFeatures,
// ZkMigrationReady) are skipped when decoding and never written.
type ApiVersionsResponse struct {
	ErrorCode      int16
	ApiKeys        []ApiVersionsResponseKey
	ThrottleTimeMs int32 // v1+
}

// Key returns KeyApiVersions.
func (*ApiVersionsResponse) Key() APIKey { return KeyApiVersions }

// ThrottleMillis returns ThrottleTimeMs.
func (m *ApiVersionsResponse) ThrottleMillis() int32 { return m.ThrottleTimeMs }

// Find returns the version range the broker serves for key, and false when
// the broker does not list key.
func (m *ApiVersionsResponse) Find(key APIKey) (VersionRange, bool) {
	for _, k := range m.ApiKeys {
		if k.ApiKey == int16(key) {
			return VersionRange{Min: k.MinVersion, Max: k.MaxVersion}, true
		}
	}
	return VersionRange{}, false
}

// Encode appends the response body at version to w.
func (m *ApiVersionsResponse) Encode(w *Writer, version int16) {
	flex := IsFlexible(KeyApiVersions, version)
	w.Int16(m.ErrorCode)
	w.ArrayLen(len(m.ApiKeys), flex)
	for _, k := range m.ApiKeys {
		w.Int16(k.ApiKey)
		w.Int16(k.MinVersion)
		w.Int16(k.MaxVersion)
		w.TaggedFields(flex)
	}
	if version >= 1 {
		w.Int32(m.ThrottleTimeMs)
	}
	w.TaggedFields(flex)
}

// Decode reads the response body at version from r.
func (m *ApiVersionsResponse) Decode(r *Reader, version int16) error {
	*m = ApiVersionsResponse{}
	if !checkVersion(r, KeyApiVersions, version) {
		return r.Err()
	}
	flex := IsFlexible(KeyApiVersions, version)
	m.ErrorCode = r.Int16()
	n := msgArrayLen(r, flex, 6+minTags(flex))
	if r.Err() != nil {
		return r.Err()
	}
	m.ApiKeys = make([]ApiVersionsResponseKey, n)
	for i := range m.ApiKeys {
		k := &m.ApiKeys[i]
		k.ApiKey = r.Int16()
		k.MinVersion = r.Int16()
		k.MaxVersion = r.Int16()
		r.TaggedFields(flex)
	}
	if version >= 1 {
		m.ThrottleTimeMs = r.Int32()
	}
	r.TaggedFields(flex)
	return r.Err()
}

// DecodeApiVersionsResponse decodes an ApiVersions response body (the bytes
// after the response header, which is always v0 for ApiVersions) sent in
// answer to a request at version, as leniently as Kafka's Java client
// (ApiVersionsResponse.parse):
//   - a body that decodes exactly at version is the answer;
//   - otherwise, above v0, a body that decodes exactly at v0 is the answer:
//     a broker that does not serve version answers UNSUPPORTED_VERSION in
//     the v0 layout, listing the ApiVersions versions it serves (KIP-511);
//   - otherwise a body that decodes at version, or else at v0, with bytes
//     left over is the answer and the rest is ignored, as the Java client
//     ignores it (librdkafka's mock cluster answers a v3 request with
//     UNSUPPORTED_VERSION in a v3 layout that leaves 5 bytes unread; the
//     caller then retries at the version the answer names, else v0).
//
// A body that decodes at neither version is an error naming both
// failures. A version the codec does not implement is an error wrapping
// ErrUnsupportedVersion, with no fallback.
func DecodeApiVersionsResponse(body []byte, version int16) (*ApiVersionsResponse, error) {
	resp, rest, err := decodeApiVersions(body, version)
	if err == nil && rest == 0 {
		return resp, nil
	}
	if vr := messageVersions(KeyApiVersions); version < vr.Min || version > vr.Max {
		return nil, fmt.Errorf("decode ApiVersions v%d response: %w", version, err)
	}
	if version == 0 {
		if err != nil {
			return nil, fmt.Errorf("decode ApiVersions v0 response: %w", err)
		}
		return resp, nil // trailing bytes ignored
	}
	resp0, rest0, err0 := decodeApiVersions(body, 0)
	switch {
	case err0 == nil && rest0 == 0:
		return resp0, nil
	case err == nil:
		return resp, nil // decoded at version; trailing bytes ignored
	case err0 == nil:
		return resp0, nil // decoded at v0; trailing bytes ignored
	}
	return nil, fmt.Errorf("decode ApiVersions v%d response: %w (v0 fallback: %w)", version, err, err0)
}

// decodeApiVersions decodes body at version and returns the number of bytes
// left unread.
func decodeApiVersions(body []byte, version int16) (*ApiVersionsResponse, int, error) {
	r := NewReader(body)
	resp := new(ApiVersionsResponse)
	if err := resp.Decode(r, version); err != nil {
		return nil, 0, err
	}
	return resp, r.Remaining(), nil
}
