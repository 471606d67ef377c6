package network_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// fuzzMaxFrame is the frame size limit of the fuzzed selector: small, so
// that the fuzzer reaches sizes above it as well as sizes that lie.
const fuzzMaxFrame = 4096

// replyServer accepts one connection per reply queued and writes the
// reply on it, then closes it.
type replyServer struct {
	ln      net.Listener
	replies chan []byte
	done    chan struct{}
}

// newReplyServer starts a reply server on loopback; f's cleanup stops it.
func newReplyServer(f *testing.F) *replyServer {
	f.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(f, err)
	s := &replyServer{ln: ln, replies: make(chan []byte, 1), done: make(chan struct{})}
	go s.serve()
	f.Cleanup(func() {
		_ = ln.Close()
		<-s.done
	})
	return s
}

// serve answers each accepted connection with the next reply.
func (s *replyServer) serve() {
	defer close(s.done)
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		reply := <-s.replies
		_, _ = c.Write(reply)
		_ = c.Close()
	}
}

// node is the server's address as a broker.
func (s *replyServer) node() network.Node {
	return network.Node{ID: 1, Host: "127.0.0.1", Port: int32(s.ln.Addr().(*net.TCPAddr).Port)}
}

// expectedFrames splits a peer's reply into the frames a correct reader
// delivers, and says how the connection must end: the sentinel the error
// wraps.
func expectedFrames(reply []byte) ([][]byte, []error) {
	var frames [][]byte
	for {
		switch {
		case len(reply) == 0 && len(frames) == 0:
			return frames, []error{network.ErrClosedBeforeResponse}
		case len(reply) == 0:
			return frames, []error{io.EOF}
		case len(reply) < 4:
			return frames, []error{io.ErrUnexpectedEOF}
		}
		size := int32(binary.BigEndian.Uint32(reply))
		if size < 0 || size > fuzzMaxFrame {
			return frames, []error{protocol.ErrFrameSize, protocol.ErrNotKafka}
		}
		if len(reply)-4 < int(size) {
			return frames, []error{io.ErrUnexpectedEOF}
		}
		frames = append(frames, reply[4:4+size])
		reply = reply[4+size:]
	}
}

// FuzzSocketFrameReader feeds arbitrary bytes, as a broker's reply, to the
// socket selector's reader over a real loopback connection. The reader
// must deliver exactly the complete frames the bytes hold, in order, then
// report one disconnection whose error is classified (a hang-up, a reply
// cut short, an impossible size), and leave no goroutine behind: never a
// panic, a hang or an allocation of the size a prefix claims.
func FuzzSocketFrameReader(f *testing.F) {
	seeds := [][]byte{
		{},
		{0, 0, 0, 4, 0, 0, 0, 1},
		{0, 0, 0, 0, 0, 0, 0, 0},
		{0, 0, 0, 8, 0, 0, 0, 1, 'p', 'o', 'n', 'g', 0, 0},
		{0xff, 0xff, 0xff, 0xff},
		{0x7f, 0xff, 0xff, 0xff, 1, 2, 3},
		{0, 0, 0x10, 0x01},
		[]byte("HTTP/1.1 400 Bad Request\r\n\r\n"),
		{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x50},
		[]byte("SSH-2.0-OpenSSH_9.6\r\n"),
		{0, 0, 0, 100, 1, 2, 3},
		{0, 0},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	srv := newReplyServer(f)
	f.Fuzz(func(t *testing.T, reply []byte) {
		if len(reply) > 1<<16 {
			return
		}
		wantFrames, wantErrs := expectedFrames(reply)
		srv.replies <- reply
		sel := network.NewSocketSelector(network.SocketConfig{MaxFrameSize: fuzzMaxFrame})
		defer sel.CloseAll()
		sel.Connect(1, srv.node(), 5*time.Second)
		events := pollUntilDisconnected(t, sel)
		require.Equal(t, network.EventConnected, events[0].Kind, "%+v", events[0])
		var got [][]byte
		for _, ev := range events[1 : len(events)-1] {
			require.Equal(t, network.EventReceived, ev.Kind, "%+v", ev)
			got = append(got, ev.Payload)
		}
		require.Equal(t, len(wantFrames), len(got), "frames delivered")
		for i := range got {
			require.Equal(t, wantFrames[i], got[i], "frame %d", i)
		}
		last := events[len(events)-1].Err
		require.Error(t, last)
		assert.True(t, errorsIsAny(last, wantErrs), "disconnection %q wraps none of %v", last, wantErrs)
		sel.CloseAll()
		require.Zero(t, sel.Goroutines())
	})
}

// pollUntilDisconnected polls sel until its connection reports its end,
// and returns every event. It fails the test if that takes far longer
// than a loopback reply can.
func pollUntilDisconnected(t *testing.T, sel *network.SocketSelector) []network.Event {
	t.Helper()
	var events []network.Event
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		events = sel.Poll(100*time.Millisecond, events)
		if n := len(events); n > 0 && events[n-1].Kind == network.EventDisconnected {
			require.GreaterOrEqual(t, n, 2, "a connection that was never made: %v", events[0].Err)
			return events
		}
	}
	t.Fatalf("no disconnection; events %+v", events)
	return nil
}

// errorsIsAny reports whether err wraps one of targets.
func errorsIsAny(err error, targets []error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
