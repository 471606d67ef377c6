package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// msgDecodeAll decodes b at version into a fresh message from c and requires
// that every byte is consumed.
func msgDecodeAll(t *testing.T, c msgCase, b []byte, version int16) Message {
	t.Helper()
	m := c.empty()
	r := NewReader(b)
	require.NoError(t, m.Decode(r, version))
	require.Zero(t, r.Remaining(), "trailing bytes after decode")
	return m
}

func TestMessagesRoundTrip(t *testing.T) {
	for _, c := range messageCases(t) {
		vr := c.versions()
		for v := vr.Min; v <= vr.Max; v++ {
			t.Run(fmt.Sprintf("%s/v%d", c.name, v), func(t *testing.T) {
				b := msgEncode(c.full(), v)
				assert.Equal(t, c.at(v), msgDecodeAll(t, c, b, v))
				// Fields absent at v are not written at all.
				assert.Equal(t, b, msgEncode(c.at(v), v), "absent fields changed the encoding")
				assert.Equal(t, c.key, c.full().Key())
			})
		}
	}
}

func TestMessagesDecodeResetsReusedValue(t *testing.T) {
	for _, c := range messageCases(t) {
		vr := c.versions()
		t.Run(c.name, func(t *testing.T) {
			// Decoding the oldest version into a value that holds the
			// newest one must leave no newer field behind.
			m := c.full()
			require.NoError(t, m.Decode(NewReader(msgEncode(c.full(), vr.Min)), vr.Min))
			assert.Equal(t, c.at(vr.Min), m)
		})
	}
}

func TestMessagesTruncatedAtEveryByte(t *testing.T) {
	for _, c := range messageCases(t) {
		vr := c.versions()
		for v := vr.Min; v <= vr.Max; v++ {
			t.Run(fmt.Sprintf("%s/v%d", c.name, v), func(t *testing.T) {
				b := msgEncode(c.full(), v)
				for n := range len(b) {
					err := c.empty().Decode(NewReader(b[:n:n]), v)
					require.Errorf(t, err, "decoding %d of %d bytes succeeded", n, len(b))
					assert.ErrorIs(t, err, ErrShortBuffer, "at %d of %d bytes", n, len(b))
				}
			})
		}
	}
}

func TestMessagesRejectUnsupportedVersions(t *testing.T) {
	for _, c := range messageCases(t) {
		vr := c.versions()
		for _, v := range []int16{vr.Min - 1, vr.Max + 1, -1, 32767} {
			if v >= vr.Min && v <= vr.Max {
				continue
			}
			t.Run(fmt.Sprintf("%s/v%d", c.name, v), func(t *testing.T) {
				err := c.empty().Decode(NewReader(msgEncode(c.full(), vr.Max)), v)
				assert.ErrorIs(t, err, ErrUnsupportedVersion)
			})
		}
	}
}

func TestCreateTopicsVersionsMatchesCodec(t *testing.T) {
	assert.Equal(t, VersionRange{2, 7}, CreateTopicsVersions)
	assert.Equal(t, CreateTopicsVersions, messageVersions(KeyCreateTopics))
}

func TestMessageVersionsCoverClientVersions(t *testing.T) {
	for _, key := range []APIKey{KeyProduce, KeyMetadata, KeySaslHandshake, KeyApiVersions, KeyInitProducerId, KeySaslAuthenticate,
		KeyCreateTopics, KeyFindCoordinator, KeyAddPartitionsToTxn, KeyEndTxn, KeyListOffsets, KeyFetch} {
		cv, ok := ClientVersions(key)
		require.True(t, ok, key.String())
		mv := messageVersions(key)
		assert.LessOrEqual(t, mv.Min, cv.Min, key.String())
		assert.GreaterOrEqual(t, mv.Max, cv.Max, key.String())
	}
}

func TestNewResponseMatchesKey(t *testing.T) {
	for _, c := range messageCases(t) {
		req, ok := c.full().(Request)
		if !ok {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			resp := req.NewResponse()
			assert.Equal(t, req.Key(), resp.Key())
			assert.Equal(t, int32(0), resp.ThrottleMillis())
		})
	}
}

func TestThrottleMillis(t *testing.T) {
	tests := []struct {
		resp Response
		want int32
	}{
		{&ApiVersionsResponse{ThrottleTimeMs: 1}, 1},
		{&MetadataResponse{ThrottleTimeMs: 2}, 2},
		{&ProduceResponse{ThrottleTimeMs: 3}, 3},
		{&InitProducerIdResponse{ThrottleTimeMs: 4}, 4},
		{&CreateTopicsResponse{ThrottleTimeMs: 5}, 5},
		{&FindCoordinatorResponse{ThrottleTimeMs: 6}, 6},
		{&AddPartitionsToTxnResponse{ThrottleTimeMs: 7}, 7},
		{&EndTxnResponse{ThrottleTimeMs: 8}, 8},
		{&ListOffsetsResponse{ThrottleTimeMs: 9}, 9},
		{&FetchResponse{ThrottleTimeMs: 10}, 10},
		{&SaslHandshakeResponse{ErrorCode: 33}, 0},
		{&SaslAuthenticateResponse{SessionLifetimeMs: 9}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.resp.Key().String(), func(t *testing.T) {
			assert.Equal(t, tt.want, tt.resp.ThrottleMillis())
		})
	}
}

func TestApiVersionsResponseFind(t *testing.T) {
	resp := &ApiVersionsResponse{ApiKeys: []ApiVersionsResponseKey{
		{ApiKey: int16(KeyProduce), MinVersion: 0, MaxVersion: 11},
		{ApiKey: int16(KeyApiVersions), MinVersion: 0, MaxVersion: 4},
	}}
	vr, ok := resp.Find(KeyApiVersions)
	assert.True(t, ok)
	assert.Equal(t, VersionRange{0, 4}, vr)
	vr, ok = resp.Find(KeyProduce)
	assert.True(t, ok)
	assert.Equal(t, VersionRange{0, 11}, vr)
	_, ok = resp.Find(KeyInitProducerId)
	assert.False(t, ok)
}

func TestNullInNonNullableFieldIsMalformed(t *testing.T) {
	tests := []struct {
		name    string
		msg     Message
		version int16
		body    []byte
	}{
		{"string", &SaslHandshakeRequest{}, 1, []byte{0xff, 0xff}},
		{"compact string", &ApiVersionsRequest{}, 3, []byte{0, 1, 0}},
		{"array", &SaslHandshakeResponse{}, 1, []byte{0, 0, 0xff, 0xff, 0xff, 0xff}},
		{"compact array", &ProduceResponse{}, 9, []byte{0, 0, 0, 0, 0, 0}},
		{"bytes", &SaslAuthenticateRequest{}, 0, []byte{0xff, 0xff, 0xff, 0xff}},
		{"compact bytes", &SaslAuthenticateRequest{}, 2, []byte{0, 0}},
		{"topic name before v12", &MetadataResponse{}, 11, []byte{
			0, 0, 0, 0, // throttle
			1,          // no brokers
			0,          // null cluster id
			0, 0, 0, 1, // controller
			2,    // one topic
			0, 0, // error code
			0,                                              // null name
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // topic id
			0, 1, 0, 0, 0, 0, 0, // internal, no partitions, operations, tags
			0, // tags
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.msg.Decode(NewReader(tt.body), tt.version)
			assert.ErrorIs(t, err, ErrMalformed)
		})
	}
}

// msgHostileBodies are inputs with huge lengths and few bytes behind them.
func msgHostileBodies() []struct {
	name    string
	msg     func() Message
	version int16
	body    []byte
} {
	huge32 := []byte{0x7f, 0xff, 0xff, 0xff}
	hugeUvarint := []byte{0xff, 0xff, 0xff, 0xff, 0x0f}
	pad := make([]byte, 24)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	return []struct {
		name    string
		msg     func() Message
		version int16
		body    []byte
	}{
		{"metadata brokers", func() Message { return new(MetadataResponse) }, 4, cat([]byte{0, 0, 0, 0}, huge32, pad)},
		{"metadata compact brokers", func() Message { return new(MetadataResponse) }, 12, cat([]byte{0, 0, 0, 0}, hugeUvarint, pad)},
		{"metadata replicas", func() Message { return new(MetadataResponse) }, 4, cat(
			[]byte{0, 0, 0, 0}, []byte{0, 0, 0, 0}, []byte{0xff, 0xff}, []byte{0, 0, 0, 1}, // throttle, brokers, cluster id, controller
			[]byte{0, 0, 0, 1, 0, 0, 0, 1, 't', 0, 0, 0, 0, 1}, // one topic "t", one partition
			[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, huge32, pad)},
		{"produce topics", func() Message { return new(ProduceResponse) }, 3, cat(huge32, pad)},
		{"produce compact topics", func() Message { return new(ProduceResponse) }, 11, cat(hugeUvarint, pad)},
		{"produce partitions", func() Message { return new(ProduceResponse) }, 3, cat([]byte{0, 0, 0, 1, 0, 1, 't'}, huge32, pad)},
		{"produce tag count", func() Message { return new(ProduceResponse) }, 10, cat([]byte{1, 0, 0, 0, 0}, hugeUvarint, pad)},
		{"produce tag size", func() Message { return new(ProduceResponse) }, 10, cat([]byte{1, 0, 0, 0, 0, 1, 0}, hugeUvarint, pad)},
		{"produce request records", func() Message { return new(ProduceRequest) }, 3, cat(
			[]byte{0xff, 0xff, 0, 1, 0, 0, 0, 0}, []byte{0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0, 0, 0, 0}, huge32, pad)},
		{"metadata request topics", func() Message { return new(MetadataRequest) }, 12, cat(hugeUvarint, pad)},
		{"api versions keys", func() Message { return new(ApiVersionsResponse) }, 0, cat([]byte{0, 0}, huge32, pad)},
		{"api versions compact keys", func() Message { return new(ApiVersionsResponse) }, 3, cat([]byte{0, 0}, hugeUvarint, pad)},
		{"sasl mechanisms", func() Message { return new(SaslHandshakeResponse) }, 1, cat([]byte{0, 0}, huge32, pad)},
		{"sasl auth bytes", func() Message { return new(SaslAuthenticateResponse) }, 0, cat([]byte{0, 0, 0xff, 0xff}, huge32, pad)},
		{"sasl compact auth bytes", func() Message { return new(SaslAuthenticateResponse) }, 2, cat([]byte{0, 0, 0}, hugeUvarint, pad)},
		{"create topics", func() Message { return new(CreateTopicsResponse) }, 7, cat([]byte{0, 0, 0, 0}, hugeUvarint, pad)},
		{"create topics request", func() Message { return new(CreateTopicsRequest) }, 2, cat(huge32, pad)},
		{"init producer id txn id", func() Message { return new(InitProducerIdRequest) }, 2, cat(hugeUvarint, pad)},
	}
}

func TestHostileLengthsFailWithoutAllocating(t *testing.T) {
	for _, tt := range msgHostileBodies() {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.msg().Decode(NewReader(tt.body), tt.version)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrShortBuffer) || errors.Is(err, ErrMalformed), "%v", err)

			allocs := testing.AllocsPerRun(20, func() {
				_ = tt.msg().Decode(NewReader(tt.body), tt.version)
			})
			assert.LessOrEqual(t, allocs, 12.0, "allocations per failed decode")

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 50 {
				_ = tt.msg().Decode(NewReader(tt.body), tt.version)
			}
			runtime.ReadMemStats(&after)
			perDecode := (after.TotalAlloc - before.TotalAlloc) / 50
			assert.Less(t, perDecode, uint64(4096), "bytes allocated per failed decode")
		})
	}
}

func TestKnownTaggedFieldWithTrailingBytesIsMalformed(t *testing.T) {
	// A ProduceResponse v10 with one partition whose CurrentLeader tagged
	// field is given as field bytes behind the declared size.
	body := func(size byte, field []byte) []byte {
		return bytes.Join([][]byte{
			{2, 2, 't', 2},           // one topic "t", one partition
			{0, 0, 0, 0, 0, 0},       // index, error code
			{0, 0, 0, 0, 0, 0, 0, 0}, // base offset
			{0, 0, 0, 0, 0, 0, 0, 0}, // log append time
			{0, 0, 0, 0, 0, 0, 0, 0}, // log start offset
			{1, 0},                   // no record errors, null error message
			{1, 0, size}, field,      // one tagged field: tag 0
			{0},          // topic tags
			{0, 0, 0, 0}, // throttle
			{0},          // tags
		}, nil)
	}
	leader := []byte{0, 0, 0, 1, 0, 0, 0, 2, 0}

	var resp ProduceResponse
	require.NoError(t, resp.Decode(NewReader(body(9, leader)), 10))
	assert.Equal(t, LeaderIDAndEpoch{LeaderID: 1, LeaderEpoch: 2}, resp.Topics[0].Partitions[0].CurrentLeader)

	err := new(ProduceResponse).Decode(NewReader(body(10, append(leader, 0xaa))), 10)
	assert.ErrorIs(t, err, ErrMalformed)
	err = new(ProduceResponse).Decode(NewReader(body(8, leader[:8])), 10)
	assert.ErrorIs(t, err, ErrShortBuffer)
}

func TestProduceRequestEncodeKeepsLargeBatchesByReference(t *testing.T) {
	large := msgTestBatch(t, 8, 700, -1, -1, -1)
	require.GreaterOrEqual(t, len(large), refThreshold)
	req := &ProduceRequest{Acks: -1, TimeoutMs: 1000, Topics: []ProduceRequestTopic{
		{Name: "t", Partitions: []ProduceRequestPartition{{Index: 0, Records: large}}},
	}}
	var w Writer
	req.Encode(&w, 9)
	found := false
	for _, b := range w.Buffers(nil) {
		if len(b) == len(large) && unsafe.SliceData(b) == unsafe.SliceData(large) {
			found = true
		}
	}
	assert.True(t, found, "the record batch was copied instead of referenced")
	assert.Equal(t, bytes.Join(w.Buffers(nil), nil), w.Encoded())
}

func TestProduceRequestEncodeDoesNotAllocate(t *testing.T) {
	small := msgTestBatch(t, 3, 10, 1, 0, 0)
	large := msgTestBatch(t, 8, 700, 1, 0, 3)
	req := &ProduceRequest{Acks: -1, TimeoutMs: 1000}
	for i := range 20 {
		req.Topics = append(req.Topics, ProduceRequestTopic{
			Name:       fmt.Sprintf("topic-%d", i),
			Partitions: []ProduceRequestPartition{{Index: 0, Records: small}, {Index: 1, Records: large}},
		})
	}
	w := NewWriter(make([]byte, 0, 1<<16))
	for _, v := range []int16{3, 8, 9, 11} {
		allocs := testing.AllocsPerRun(50, func() {
			w.Reset()
			req.Encode(w, v)
		})
		assert.Zero(t, allocs, "v%d", v)
	}
}

func BenchmarkProduceRequestEncode(b *testing.B) {
	batch := msgTestBatch(b, 50, 100, 1, 0, 0)
	req := &ProduceRequest{Acks: -1, TimeoutMs: 1000}
	for i := range 10 {
		parts := make([]ProduceRequestPartition, 10)
		for j := range parts {
			parts[j] = ProduceRequestPartition{Index: int32(j), Records: batch}
		}
		req.Topics = append(req.Topics, ProduceRequestTopic{Name: fmt.Sprintf("topic-%d", i), Partitions: parts})
	}
	w := NewWriter(make([]byte, 0, 1<<16))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		req.Encode(w, 9)
	}
}

func BenchmarkProduceResponseDecode(b *testing.B) {
	body := msgEncode(produceResponseFull(), 11)
	var resp ProduceResponse
	b.ReportAllocs()
	for b.Loop() {
		if err := resp.Decode(NewReader(body), 11); err != nil {
			b.Fatal(err)
		}
	}
}
