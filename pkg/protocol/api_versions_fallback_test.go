package protocol

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// msgUnsupportedVersionV0 is what a broker that does not serve the requested
// ApiVersions version answers (KIP-511): UNSUPPORTED_VERSION in the v0
// layout, listing its own ApiVersions range. kmsg encodes it.
func msgUnsupportedVersionV0() []byte {
	k := kmsg.NewPtrApiVersionsResponse()
	k.Version = 0
	k.ErrorCode = 35
	k.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 18, MinVersion: 0, MaxVersion: 2}}
	return k.AppendTo(nil)
}

func TestDecodeApiVersionsResponseFallsBackToV0(t *testing.T) {
	body := msgUnsupportedVersionV0()
	for _, v := range []int16{1, 2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			// Decoding at the requested version alone fails or leaves
			// bytes behind...
			r := NewReader(body)
			err := new(ApiVersionsResponse).Decode(r, v)
			assert.True(t, err != nil || r.Remaining() > 0, "the v0 body decodes cleanly at v%d", v)

			// ...so the fallback decodes it at v0.
			resp, err := DecodeApiVersionsResponse(body, v)
			require.NoError(t, err)
			assert.ErrorIs(t, ErrorForCode(resp.ErrorCode), ErrUnsupportedVersion)
			assert.Equal(t, []ApiVersionsResponseKey{{ApiKey: 18, MinVersion: 0, MaxVersion: 2}}, resp.ApiKeys)
			assert.Zero(t, resp.ThrottleTimeMs)
			vr, ok := resp.Find(KeyApiVersions)
			assert.True(t, ok)
			assert.Equal(t, VersionRange{0, 2}, vr)
		})
	}
}

func TestDecodeApiVersionsResponseAtRequestedVersion(t *testing.T) {
	c := apiVersionsResponseCase()
	for v := int16(0); v <= 3; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			k := msgToKmsg(t, c.at(v), v)
			resp, err := DecodeApiVersionsResponse(k.AppendTo(nil), v)
			require.NoError(t, err)
			assert.Equal(t, c.at(v), resp, "no fallback for a well-formed body")
		})
	}
}

func TestDecodeApiVersionsResponseErrors(t *testing.T) {
	tests := []struct {
		name    string
		body    []byte
		version int16
	}{
		{"empty", nil, 3},
		{"garbage", []byte{0xff, 0xff, 0xff}, 3},
		{"truncated v0", msgUnsupportedVersionV0()[:7], 3},
		{"unsupported version", msgUnsupportedVersionV0(), 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := DecodeApiVersionsResponse(tt.body, tt.version)
			assert.Error(t, err)
			assert.Nil(t, resp)
		})
	}
	_, err := DecodeApiVersionsResponse([]byte{0, 0, 0, 0, 0, 9}, 3)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrShortBuffer, "the v0 failure is wrapped: %v", err)
	assert.Contains(t, err.Error(), "v0 fallback")

	_, err = DecodeApiVersionsResponse(msgUnsupportedVersionV0(), 4)
	assert.ErrorIs(t, err, ErrUnsupportedVersion, "no fallback from a version the codec lacks")
}

// librdkafkaMockV3Answer is the body (after the correlation id) that
// librdkafka 2.11's mock cluster sends in answer to an ApiVersions v3
// request, captured from kafka.NewMockCluster: UNSUPPORTED_VERSION, a
// compact array count of 1 (zero entries) followed by one v0-style entry
// (ApiVersions v0-v2) and four zero bytes. At v3 it decodes with 5 bytes
// left over; at v0 it does not decode at all.
const librdkafkaMockV3Answer = "00230100120000000200000000"

func TestDecodeApiVersionsResponseLenient(t *testing.T) {
	mock, err := hex.DecodeString(librdkafkaMockV3Answer)
	require.NoError(t, err)
	success := apiVersionsResponseCase()
	tests := []struct {
		name    string
		body    []byte
		version int16
		want    *ApiVersionsResponse
	}{
		{
			// Kafka's Java client reads the v3 fields and ignores the rest:
			// error 35 with no versions listed, so it retries at v0.
			name: "librdkafka mock answer to v3", body: mock, version: 3,
			want: &ApiVersionsResponse{ErrorCode: 35, ApiKeys: []ApiVersionsResponseKey{}, ThrottleTimeMs: 0x00120000},
		},
		{
			name: "v0 with trailing bytes", body: append(msgUnsupportedVersionV0(), 0, 1, 2), version: 0,
			want: &ApiVersionsResponse{ErrorCode: 35, ApiKeys: []ApiVersionsResponseKey{{ApiKey: 18, MinVersion: 0, MaxVersion: 2}}},
		},
		{
			name: "KIP-511 v0 answer with trailing bytes to v2", body: append(msgUnsupportedVersionV0(), 0, 0, 0, 0, 0, 0, 0, 0, 0), version: 2,
			want: &ApiVersionsResponse{ErrorCode: 35, ApiKeys: []ApiVersionsResponseKey{{ApiKey: 18, MinVersion: 0, MaxVersion: 2}}},
		},
	}
	for v := int16(0); v <= 3; v++ {
		k := msgToKmsg(t, success.at(v), v)
		tests = append(tests, struct {
			name    string
			body    []byte
			version int16
			want    *ApiVersionsResponse
		}{fmt.Sprintf("v%d success with trailing bytes", v), append(k.AppendTo(nil), 0xde, 0xad), v, success.at(v).(*ApiVersionsResponse)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := DecodeApiVersionsResponse(tt.body, tt.version)
			require.NoError(t, err)
			assert.Equal(t, tt.want, resp)
		})
	}
}
