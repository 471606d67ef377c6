package cli

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// malformedBroker is a one-connection-at-a-time fake broker: it answers
// ApiVersions with the client's own ranges and every Metadata request
// with a response whose what ("brokers", "topics" or "partitions") array
// claims a billion entries, with nothing after.
func malformedBroker(t *testing.T, what string) string {
	t.Helper()
	srv, err := networktest.NewServer(func(c net.Conn) {
		defer c.Close()
		for {
			payload, err := readFrame(c)
			if err != nil {
				return
			}
			h, _, err := protocol.DecodeRequest(payload, networktest.NewRequest)
			if err != nil {
				return
			}
			w := protocol.NewWriter(nil)
			w.Int32(0)
			hdr := protocol.ResponseHeader{CorrelationID: h.CorrelationID}
			hdr.Encode(w, protocol.ResponseHeaderVersion(h.APIKey, h.APIVersion))
			switch h.APIKey {
			case protocol.KeyApiVersions:
				networktest.DefaultApiVersions().Encode(w, h.APIVersion)
			case protocol.KeyMetadata:
				hugeArrays(w, h.APIVersion, what)
			default:
				return
			}
			w.PutInt32At(0, int32(w.Len()-4))
			if _, err := c.Write(w.Encoded()); err != nil {
				return
			}
		}
	})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv.Addr()
}

// hugeArrays writes the start of a Metadata response (version v) up to an
// array of what that claims a billion entries.
func hugeArrays(w *protocol.Writer, v int16, what string) {
	flex := protocol.IsFlexible(protocol.KeyMetadata, v)
	count := func(n int) {
		if flex {
			w.Uvarint(uint32(n + 1))
		} else {
			w.Int32(int32(n))
		}
	}
	w.Int32(0) // throttle_time_ms
	if what == "brokers" {
		count(1_000_000_000)
		return
	}
	count(0)
	w.NullableString(nil, flex) // cluster id
	w.Int32(0)                  // controller id
	if what == "topics" {
		count(1_000_000_000)
		return
	}
	count(1)
	w.Int16(0)
	name := "t"
	w.NullableString(&name, flex)
	if v >= 10 {
		w.Raw(make([]byte, 16)) // topic id
	}
	w.Int8(0) // not internal
	count(1_000_000_000)
}

// readFrame reads one size-prefixed frame.
func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > 1<<20 {
		return nil, errors.New("frame too large")
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

// TestMalformedMetadataFailsAtOnce produces to a broker whose Metadata
// response cannot be decoded: the run fails within a second (the bootstrap
// timeout is a minute), exit 1, with the decode error and without blaming
// the address; kproduce metadata says the same.
func TestMalformedMetadataFailsAtOnce(t *testing.T) {
	for _, what := range []string{"brokers", "topics", "partitions"} {
		t.Run(what, func(t *testing.T) {
			addr := malformedBroker(t, what)
			r := runKproduce(t, strings.NewReader("x\n"), "-b", addr, "-t", "t", "--bootstrap-timeout", "1m")
			assert.Equal(t, cmdutil.ExitFailed, r.Code, r.Stderr)
			assert.Less(t, r.Took, time.Second, "reported at once, not at the bootstrap timeout")
			assert.Contains(t, r.Stderr, "malformed response: Metadata v")
			assert.Contains(t, r.Stderr, "array of 1000000000 elements")
			assert.NotContains(t, r.Stderr, "Kafka listener")

			r = runKproduce(t, nil, "metadata", "-b", addr, "--timeout", "1m")
			assert.Equal(t, cmdutil.ExitFailed, r.Code, r.Stderr)
			assert.Less(t, r.Took, time.Second)
			assert.Contains(t, r.Stderr, "array of 1000000000 elements")
		})
	}
}
