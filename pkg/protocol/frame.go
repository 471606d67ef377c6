package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// DefaultMaxFrameSize is the largest response frame accepted by default
// (100 MiB, like Kafka's socket.request.max.bytes).
const DefaultMaxFrameSize = 100 << 20

// ErrFrameSize is wrapped by errors about an impossible frame size prefix.
var ErrFrameSize = errors.New("invalid frame size")

// ErrNotKafka is wrapped when the peer's first bytes show it speaks another
// protocol (HTTP, TLS, SSH).
var ErrNotKafka = errors.New("peer does not speak the Kafka protocol")

// FrameSize validates a 4-byte size prefix and returns the payload size.
// A negative size, or one above max, is an error; when the bytes look like
// the start of an HTTP, TLS or SSH reply the error says so (wrapping
// ErrNotKafka), because a size read from such a reply is always huge.
func FrameSize(prefix [4]byte, max int32) (int32, error) {
	size := int32(binary.BigEndian.Uint32(prefix[:]))
	if size >= 0 && size <= max {
		return size, nil
	}
	if proto := otherProtocol(prefix); proto != "" {
		return 0, fmt.Errorf("%w: it answered like %s (first bytes %q)", ErrNotKafka, proto, prefix[:])
	}
	if size < 0 {
		return 0, fmt.Errorf("%w: negative size %d", ErrFrameSize, size)
	}
	return 0, fmt.Errorf("%w: size %d exceeds the limit of %d bytes", ErrFrameSize, size, max)
}

// otherProtocol names the protocol whose reply starts with prefix, or "".
func otherProtocol(p [4]byte) string {
	switch {
	case string(p[:]) == "HTTP" || string(p[:]) == "<!DO" || string(p[:]) == "<htm":
		return "an HTTP server"
	case p[0] >= 0x14 && p[0] <= 0x18 && p[1] == 0x03 && p[2] <= 0x04:
		return "a TLS server (try --tls)"
	case string(p[:]) == "SSH-":
		return "an SSH server"
	}
	return ""
}
