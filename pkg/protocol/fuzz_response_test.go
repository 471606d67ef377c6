package protocol

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The seed corpora under testdata/fuzz are valid encodings of the fixtures
// at every version. To regenerate them, run the fuzz targets' seed pass with
// KPRODUCE_WRITE_FUZZ_SEEDS=1.
const msgWriteFuzzSeedsEnv = "KPRODUCE_WRITE_FUZZ_SEEDS"

// msgFuzzSeeds writes seeds as the committed corpus of the fuzz target f
// when msgWriteFuzzSeedsEnv is set.
func msgFuzzSeeds(f *testing.F, seeds map[string][]byte) {
	f.Helper()
	if os.Getenv(msgWriteFuzzSeedsEnv) == "" {
		return
	}
	dir := filepath.Join("testdata", "fuzz", f.Name())
	require.NoError(f, os.MkdirAll(dir, 0o755))
	for name, b := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		require.NoError(f, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
}

// msgCaseSeeds is the encoding of c's full value at every version.
func msgCaseSeeds(c msgCase) map[string][]byte {
	seeds := make(map[string][]byte)
	vr := c.versions()
	for v := vr.Min; v <= vr.Max; v++ {
		seeds[fmt.Sprintf("v%d", v)] = msgEncode(c.full(), v)
	}
	return seeds
}

// msgReencodes checks the fuzzing invariant for one version: when body
// decodes, the value re-encodes into bytes that decode, completely, to the
// same value.
func msgReencodes(t *testing.T, newMsg func() Message, body []byte, v int16) {
	m := newMsg()
	if err := m.Decode(NewReader(body), v); err != nil {
		return
	}
	again := newMsg()
	r := NewReader(msgEncode(m, v))
	require.NoError(t, again.Decode(r, v), "re-encoding of a decoded v%d value does not decode", v)
	require.Zero(t, r.Remaining(), "re-encoding at v%d leaves trailing bytes", v)
	require.Equal(t, m, again, "v%d value changed through re-encoding", v)
}

// msgFuzzResponse fuzzes the decoder of c's message at every version,
// seeded with c's encodings and extra.
func msgFuzzResponse(f *testing.F, c msgCase, extra map[string][]byte) {
	seeds := msgCaseSeeds(c)
	for name, b := range extra {
		seeds[name] = b
	}
	msgFuzzSeeds(f, seeds)
	f.Fuzz(func(t *testing.T, body []byte) {
		vr := c.versions()
		for v := vr.Min; v <= vr.Max; v++ {
			msgReencodes(t, c.empty, body, v)
		}
	})
}

func FuzzMetadataResponse(f *testing.F) { msgFuzzResponse(f, metadataResponseCase(), nil) }

func FuzzProduceResponse(f *testing.F) {
	// kmsg's encodings with unknown tagged fields, and with CurrentLeader
	// and NodeEndpoints at v9, where they are unknown too.
	extra := make(map[string][]byte)
	for _, v := range []int16{9, 10} {
		k := produceResponseToKmsg(produceResponseFull())
		k.Version = v
		k.UnknownTags.Set(7, []byte{1, 2, 3})
		k.Topics[0].Partitions[0].UnknownTags.Set(5, []byte{5, 6})
		extra[fmt.Sprintf("kmsg-unknown-tags-v%d", v)] = k.AppendTo(nil)
	}
	msgFuzzResponse(f, produceResponseCase(), extra)
}

func FuzzInitProducerIdResponse(f *testing.F) { msgFuzzResponse(f, initProducerIDResponseCase(), nil) }

func FuzzSaslHandshakeResponse(f *testing.F) { msgFuzzResponse(f, saslHandshakeResponseCase(), nil) }

func FuzzSaslAuthenticateResponse(f *testing.F) {
	msgFuzzResponse(f, saslAuthenticateResponseCase(), nil)
}

func FuzzCreateTopicsResponse(f *testing.F) { msgFuzzResponse(f, createTopicsResponseCase(), nil) }

func FuzzApiVersionsResponse(f *testing.F) {
	c := apiVersionsResponseCase()
	seeds := msgCaseSeeds(c)
	seeds["v0-unsupported-version"] = msgUnsupportedVersionV0()
	msgFuzzSeeds(f, seeds)
	f.Fuzz(func(t *testing.T, body []byte) {
		for v := int16(0); v <= 3; v++ {
			msgReencodes(t, c.empty, body, v)

			resp, err := DecodeApiVersionsResponse(body, v)
			if err != nil {
				require.Nil(t, resp)
				continue
			}
			// Whichever layout it fell back to, the value survives a
			// re-encoding at the requested version.
			again, err := DecodeApiVersionsResponse(msgEncode(resp, v), v)
			require.NoError(t, err)
			require.Equal(t, resp, again)
		}
	})
}

func FuzzRequestHeader(f *testing.F) {
	seeds := make(map[string][]byte)
	for _, c := range messageCases(f) {
		req, ok := c.full().(Request)
		if !ok {
			continue
		}
		vr := c.versions()
		for _, v := range []int16{vr.Min, vr.Max} {
			var w Writer
			h := RequestHeader{APIKey: c.key, APIVersion: v, CorrelationID: 99, ClientID: msgPtr("kproduce")}
			AppendRequestFrame(&w, &h, req)
			name := strings.ReplaceAll(c.name, "/", "-")
			seeds[fmt.Sprintf("%s-v%d", name, v)] = w.Encoded()[4:]
		}
	}
	msgFuzzSeeds(f, seeds)
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, hv := range []int16{1, 2} {
			var h RequestHeader
			if h.Decode(NewReader(payload), hv) != nil {
				continue
			}
			var w Writer
			h.Encode(&w, hv)
			var again RequestHeader
			r := NewReader(w.Encoded())
			require.NoError(t, again.Decode(r, hv))
			require.Zero(t, r.Remaining())
			require.Equal(t, h, again)
		}

		h, body, err := DecodeRequest(payload, msgNewRequestBody)
		if err != nil {
			return
		}
		var w Writer
		AppendRequestFrame(&w, h, body)
		h2, body2, err := DecodeRequest(w.Encoded()[4:], msgNewRequestBody)
		require.NoError(t, err)
		require.Equal(t, h, h2)
		require.Equal(t, body, body2)
	})
}
