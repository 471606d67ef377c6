package protocol

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestRequestFramesMatchKmsg(t *testing.T) {
	for _, c := range messageCases(t) {
		if _, ok := c.full().(Request); !ok {
			continue
		}
		vr := c.versions()
		for v := vr.Min; v <= vr.Max; v++ {
			for _, clientID := range []*string{msgPtr("kproduce-test"), nil} {
				name := fmt.Sprintf("%s/v%d/client-id=%v", c.name, v, clientID != nil)
				t.Run(name, func(t *testing.T) {
					msgCheckRequestFrame(t, c, v, clientID)
				})
			}
		}
	}
}

func msgCheckRequestFrame(t *testing.T, c msgCase, v int16, clientID *string) {
	body := c.full().(Request)
	corr := int32(0x01020300) + int32(v)
	h := RequestHeader{APIKey: c.key, APIVersion: v, CorrelationID: corr, ClientID: clientID}
	var w Writer
	AppendRequestFrame(&w, &h, body)
	frame := w.Encoded()

	// kmsg formats the same frame.
	var opts []kmsg.RequestFormatterOpt
	if clientID != nil {
		opts = append(opts, kmsg.FormatterClientID(*clientID))
	}
	kreq := msgToKmsg(t, c.at(v), v).(kmsg.Request)
	assert.Equal(t, kmsg.NewRequestFormatter(opts...).AppendRequest(nil, kreq, corr), frame)

	// The header read by hand, the body by kmsg.
	be := binary.BigEndian
	require.GreaterOrEqual(t, len(frame), 14)
	assert.Equal(t, len(frame)-4, int(be.Uint32(frame)), "size prefix")
	assert.Equal(t, int16(c.key), int16(be.Uint16(frame[4:])))
	assert.Equal(t, v, int16(be.Uint16(frame[6:])))
	assert.Equal(t, corr, int32(be.Uint32(frame[8:])))
	rest := frame[14:]
	if n := int16(be.Uint16(frame[12:])); n >= 0 {
		require.NotNil(t, clientID)
		assert.Equal(t, *clientID, string(rest[:n]))
		rest = rest[n:]
	} else {
		assert.Nil(t, clientID)
	}
	if kreq.IsFlexible() {
		require.Equal(t, byte(0), rest[0], "empty header tagged fields")
		rest = rest[1:]
	}
	k := msgNewKmsg(body, v)
	require.NoError(t, k.ReadFrom(rest))
	assert.Equal(t, c.at(v), msgFromKmsg(t, k))

	// And our broker side reads it back.
	gotH, gotBody, err := DecodeRequest(frame[4:], msgNewRequestBody)
	require.NoError(t, err)
	assert.Equal(t, h, *gotH)
	assert.Equal(t, c.at(v), gotBody)
}

func TestResponseFramesFromKmsg(t *testing.T) {
	for _, c := range messageCases(t) {
		if _, ok := c.full().(Response); !ok {
			continue
		}
		vr := c.versions()
		for v := vr.Min; v <= vr.Max; v++ {
			t.Run(fmt.Sprintf("%s/v%d", c.name, v), func(t *testing.T) {
				kresp := msgToKmsg(t, c.at(v), v).(kmsg.Response)
				corr := int32(-7) - int32(v)
				payload := binary.BigEndian.AppendUint32(nil, uint32(corr))
				// Response header v1 (tagged fields) for flexible
				// responses, except ApiVersions, which is always v0.
				if kresp.IsFlexible() && kresp.Key() != 18 {
					payload = append(payload, 0)
				}
				payload = kresp.AppendTo(payload)

				body := c.empty().(Response)
				h, err := DecodeResponse(payload, c.key, v, body)
				require.NoError(t, err)
				assert.Equal(t, corr, h.CorrelationID)
				assert.Equal(t, c.at(v), body)
			})
		}
	}
}
