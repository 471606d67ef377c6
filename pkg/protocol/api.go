package protocol

import "fmt"

// APIKey identifies a Kafka request type.
type APIKey int16

// The API keys kproduce speaks.
const (
	KeyProduce            APIKey = 0
	KeyFetch              APIKey = 1
	KeyListOffsets        APIKey = 2
	KeyMetadata           APIKey = 3
	KeyFindCoordinator    APIKey = 10
	KeySaslHandshake      APIKey = 17
	KeyApiVersions        APIKey = 18
	KeyCreateTopics       APIKey = 19
	KeyInitProducerId     APIKey = 22
	KeyAddPartitionsToTxn APIKey = 24
	KeyEndTxn             APIKey = 26
	KeySaslAuthenticate   APIKey = 36
)

// String is the Kafka name of the API.
func (k APIKey) String() string {
	switch k {
	case KeyProduce:
		return "Produce"
	case KeyFetch:
		return "Fetch"
	case KeyListOffsets:
		return "ListOffsets"
	case KeyMetadata:
		return "Metadata"
	case KeyFindCoordinator:
		return "FindCoordinator"
	case KeyAddPartitionsToTxn:
		return "AddPartitionsToTxn"
	case KeyEndTxn:
		return "EndTxn"
	case KeySaslHandshake:
		return "SaslHandshake"
	case KeyApiVersions:
		return "ApiVersions"
	case KeyCreateTopics:
		return "CreateTopics"
	case KeyInitProducerId:
		return "InitProducerId"
	case KeySaslAuthenticate:
		return "SaslAuthenticate"
	}
	return fmt.Sprintf("ApiKey(%d)", int16(k))
}

// VersionRange is an inclusive range of API versions.
type VersionRange struct {
	Min, Max int16
}

// ClientVersions returns the versions of key the client can speak, and false
// for an API the client does not know. The floors are the oldest versions
// kproduce supports: Produce v3 (record batch v2) and Metadata v4.
// FindCoordinator starts at v1, the first with a key type (v0 finds group
// coordinators only). AddPartitionsToTxn stops at v3 (v4+ is the brokers'
// batched form) and EndTxn at v4 (with v5 the coordinator bumps the epoch
// of a KIP-890 transaction, which kproduce does not run). Fetch starts at
// v4 and ListOffsets at v2, the first with isolation levels.
func ClientVersions(key APIKey) (VersionRange, bool) {
	switch key {
	case KeyProduce:
		return VersionRange{3, 11}, true
	case KeyMetadata:
		return VersionRange{4, 12}, true
	case KeySaslHandshake:
		return VersionRange{1, 1}, true
	case KeyApiVersions:
		return VersionRange{0, 3}, true
	case KeyInitProducerId:
		return VersionRange{0, 4}, true
	case KeySaslAuthenticate:
		return VersionRange{0, 2}, true
	case KeyCreateTopics:
		return CreateTopicsVersions, true
	case KeyFindCoordinator:
		return VersionRange{1, 6}, true
	case KeyAddPartitionsToTxn:
		return VersionRange{0, 3}, true
	case KeyEndTxn:
		return VersionRange{0, 4}, true
	case KeyFetch:
		return VersionRange{4, 18}, true
	case KeyListOffsets:
		return VersionRange{2, 11}, true
	}
	return VersionRange{}, false
}

// firstFlexible is the first flexible (KIP-482) version of each API, or -1
// when no supported version is flexible.
func firstFlexible(key APIKey) int16 {
	switch key {
	case KeyProduce, KeyMetadata:
		return 9
	case KeyApiVersions:
		return 3
	case KeyInitProducerId, KeySaslAuthenticate:
		return 2
	case KeyCreateTopics:
		return 5
	case KeyFindCoordinator, KeyAddPartitionsToTxn, KeyEndTxn:
		return 3
	case KeyFetch:
		return 12
	case KeyListOffsets:
		return 6
	}
	return -1
}

// IsFlexible reports whether version of key uses compact types and tagged
// fields.
func IsFlexible(key APIKey, version int16) bool {
	f := firstFlexible(key)
	return f >= 0 && version >= f
}

// RequestHeaderVersion is the request header version for key at version:
// v2 for flexible requests, v1 otherwise.
func RequestHeaderVersion(key APIKey, version int16) int16 {
	if IsFlexible(key, version) {
		return 2
	}
	return 1
}

// ResponseHeaderVersion is the response header version for key at version:
// v1 for flexible responses, v0 otherwise. ApiVersions responses always use
// v0 so a client can read them before it knows the broker's versions.
func ResponseHeaderVersion(key APIKey, version int16) int16 {
	if key != KeyApiVersions && IsFlexible(key, version) {
		return 1
	}
	return 0
}

// Message is a request or response body that encodes and decodes itself at
// a given version.
type Message interface {
	// Key is the message's API key.
	Key() APIKey
	// Encode appends the body at version to w.
	Encode(w *Writer, version int16)
	// Decode reads the body at version from r.
	Decode(r *Reader, version int16) error
}

// Request is a request body; NewResponse returns an empty response body of
// the matching type, ready for Decode.
type Request interface {
	Message
	NewResponse() Response
}

// VersionBounded is implemented by a request that can be sent at only some
// of the versions the client speaks (a Fetch of a topic whose id is
// unknown: v12 at most). Version negotiation keeps within AllowedVersions.
type VersionBounded interface {
	AllowedVersions() VersionRange
}

// Response is a response body.
type Response interface {
	Message
	// ThrottleMillis is the broker's throttle_time_ms, or 0 when the
	// version has none.
	ThrottleMillis() int32
}
