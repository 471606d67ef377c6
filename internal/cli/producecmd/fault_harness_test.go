package producecmd_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// The fault-injection suite (the fault_*_test.go files) runs the whole
// command against a 3-broker kfake cluster with a 6-partition topic while
// the cluster misbehaves, and checks that every input record got exactly
// one outcome: delivered once, in order, at the offset reported, or failed
// with its position and reason (see faultCheck).
//
// Environment:
//   - KPRODUCE_LONG_TESTS=1 runs every scenario with 100,000 records
//     instead of faultDefaultRecords;
//   - KPRODUCE_FAULT_DEBUG=DIR runs the command with --log-level debug and
//     writes each scenario's log to DIR.
//
// This file holds the cluster side: listeners that know which broker they
// serve and track the connections they accepted (kafkatest.Listeners),
// and connections that can rewrite or drop a broker's Produce responses.

// faultPartitions is the partition count of a scenario's topic.
const faultPartitions = 6

// faultHooks are the cluster-side hooks of a scenario. They are set before
// the cluster starts and never change; they run on kfake's connection
// goroutines and must be safe for concurrent use.
type faultHooks struct {
	// onRequest sees every request a broker reads, when it reads it.
	onRequest func(node int32, key int16, at time.Time)
	// onProduceResponse may change a Produce response before it is written
	// (set ThrottleMillis, say); returning drop closes the connection
	// instead of answering, after the broker did the work.
	onProduceResponse func(node int32, resp *kmsg.ProduceResponse) (drop bool)
}

// faultCluster is a kfake cluster whose listeners are tracked per broker.
type faultCluster struct {
	*kfake.Cluster
	hooks faultHooks
	// topic is the scenario's topic. Its name is random, so that a client
	// of another test that reaches this cluster through a reused port
	// cannot write to it.
	topic string

	// nodes are the brokers' listeners, their connections faultConns.
	nodes kafkatest.Listeners

	mu       sync.Mutex         // guards the fields below
	produced *kfake.FaultHandle // observes every Produce request
	initPIDs *kfake.FaultHandle // observes every InitProducerId request
	injected []*kfake.FaultHandle
	runEnd   []func()
	mayFail  func(*faultReport) bool

	// hits counts faults injected by controls and hooks.
	hits atomic.Int64
}

// newFaultCluster starts a 3-broker cluster with a faultPartitions topic,
// closed at the end of the test. hooks, when not nil, returns the cluster-side hooks; it
// runs before the cluster starts.
func newFaultCluster(t testing.TB, hooks func(*faultCluster) faultHooks, opts ...kfake.Opt) *faultCluster {
	t.Helper()
	fc := &faultCluster{topic: fmt.Sprintf("fault-%016x", rand.Uint64())}
	if hooks != nil {
		fc.hooks = hooks(fc)
	}
	fc.nodes.Wrap = func(node int32, c net.Conn) net.Conn {
		return &faultConn{Conn: c, node: node, hooks: &fc.hooks, reqs: make(map[int32]requestHeader)}
	}
	base := []kfake.Opt{
		kfake.NumBrokers(3),
		kfake.SeedTopics(faultPartitions, fc.topic),
		kfake.ListenFn(fc.nodes.Listen),
	}
	c := kafkatest.NewCluster(t, append(base, opts...)...)
	fc.Cluster = c
	fc.produced = c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Count: -1, Observe: true})
	fc.initPIDs = c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.InitProducerID}, Count: -1, Observe: true})
	return fc
}

// inject installs faults and remembers them, so that the checker can
// tell that they fired.
func (fc *faultCluster) inject(faults ...kfake.Fault) *kfake.FaultHandle {
	h := fc.Fault(faults...)
	fc.mu.Lock()
	fc.injected = append(fc.injected, h)
	fc.mu.Unlock()
	return h
}

// noteInjected counts a fault injected by a control or a hook.
func (fc *faultCluster) noteInjected() { fc.hits.Add(1) }

// injectedCount is how many requests the scenario's faults hit.
func (fc *faultCluster) injectedCount() int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	n := int(fc.hits.Load())
	for _, h := range fc.injected {
		n += h.Hits()
	}
	return n
}

// produceRequests is how many Produce requests the cluster has received.
func (fc *faultCluster) produceRequests() int { return fc.produced.Hits() }

// producerIDRequests is how many InitProducerId requests the cluster has
// received.
func (fc *faultCluster) producerIDRequests() int { return fc.initPIDs.Hits() }

// leaders returns the leader of every partition of the topic.
func (fc *faultCluster) leaders() []int32 {
	out := make([]int32, faultPartitions)
	for p := range out {
		out[p] = fc.LeaderFor(fc.topic, int32(p))
	}
	return out
}

// port returns the port a broker listens on.
func (fc *faultCluster) port(node int32) (int, error) { return fc.nodes.Port(node) }

// killNode takes a broker down the way a crash does: it leaves the cluster
// and every connection it accepted is closed (kfake's RemoveNode alone
// keeps them open).
func (fc *faultCluster) killNode(node int32) error {
	if _, err := fc.nodes.Port(node); err != nil {
		return err
	}
	if err := fc.RemoveNode(node); err != nil {
		return err
	}
	return fc.nodes.CloseConns(node)
}

// restartNode brings a killed broker back with the same id and port.
func (fc *faultCluster) restartNode(node int32, port int) error {
	fc.nodes.NextNode(node)
	got, _, err := fc.AddNode(node, port)
	if err == nil && got != node {
		err = fmt.Errorf("broker %d came back as %d", node, got)
	}
	return err
}

// setMayFail selects, for this run, records that may fail besides those
// the scenario's expectations name (for failures that depend on which
// broker a fault hit).
func (fc *faultCluster) setMayFail(fn func(*faultReport) bool) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.mayFail = fn
}

// runMayFail returns what setMayFail set, or nil.
func (fc *faultCluster) runMayFail() func(*faultReport) bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.mayFail
}

// onRunEnd registers fn to run when the command has exited, before the
// topic is read back.
func (fc *faultCluster) onRunEnd(fn func()) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.runEnd = append(fc.runEnd, fn)
}

// runEnded runs the functions registered with onRunEnd.
func (fc *faultCluster) runEnded() {
	fc.mu.Lock()
	fns := fc.runEnd
	fc.runEnd = nil
	fc.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// requestHeader is what a response needs to know about its request.
type requestHeader struct {
	key, version int16
}

// faultConn is the broker side of one connection. It follows the request
// frames the broker reads (to know the API of each response) and hands
// Produce responses to the scenario's hook.
type faultConn struct {
	net.Conn
	node   int32
	hooks  *faultHooks
	closed atomic.Bool

	// Owned by the broker's read goroutine.
	hdr  [12]byte // size, key, version, correlation id of the frame being read
	have int      // bytes of hdr read
	skip int      // body bytes of the frame still to be read

	mu   sync.Mutex // guards reqs
	reqs map[int32]requestHeader
}

// Read reads what the client sent, noting each request's header.
func (c *faultConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.follow(p[:n])
	return n, err
}

// follow parses the request frames in b.
func (c *faultConn) follow(b []byte) {
	for len(b) > 0 {
		if c.skip > 0 {
			n := min(c.skip, len(b))
			c.skip -= n
			b = b[n:]
			continue
		}
		n := copy(c.hdr[c.have:], b)
		c.have += n
		b = b[n:]
		if c.have < len(c.hdr) {
			return
		}
		size := int(binary.BigEndian.Uint32(c.hdr[0:4]))
		key := int16(binary.BigEndian.Uint16(c.hdr[4:6]))
		version := int16(binary.BigEndian.Uint16(c.hdr[6:8]))
		corr := int32(binary.BigEndian.Uint32(c.hdr[8:12]))
		c.have, c.skip = 0, max(size-8, 0)
		c.mu.Lock()
		c.reqs[corr] = requestHeader{key: key, version: version}
		c.mu.Unlock()
		if c.hooks.onRequest != nil {
			c.hooks.onRequest(c.node, key, time.Now())
		}
	}
}

// Write writes one response frame (kfake writes each in one call), giving
// Produce responses to the hook first.
func (c *faultConn) Write(b []byte) (int, error) {
	if len(b) < 8 || c.hooks.onProduceResponse == nil {
		return c.Conn.Write(b)
	}
	corr := int32(binary.BigEndian.Uint32(b[4:8]))
	c.mu.Lock()
	h, ok := c.reqs[corr]
	delete(c.reqs, corr)
	c.mu.Unlock()
	if !ok || h.key != int16(kmsg.Produce) {
		return c.Conn.Write(b)
	}
	frame, drop := c.rewriteProduce(b, h.version)
	if drop {
		_ = c.Close()
		return 0, net.ErrClosed
	}
	if _, err := c.Conn.Write(frame); err != nil {
		return 0, err
	}
	return len(b), nil
}

// rewriteProduce decodes a Produce response frame, lets the hook change
// it and encodes it again.
func (c *faultConn) rewriteProduce(b []byte, version int16) (frame []byte, drop bool) {
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = version
	off := 8
	if resp.IsFlexible() {
		off++ // the response header's empty tagged fields
	}
	if err := resp.ReadFrom(b[off:]); err != nil {
		return b, false // not ours to judge: the client sees it as is
	}
	if c.hooks.onProduceResponse(c.node, resp) {
		return nil, true
	}
	frame = append([]byte(nil), b[:off]...)
	frame = resp.AppendTo(frame)
	binary.BigEndian.PutUint32(frame[0:4], uint32(len(frame)-4))
	return frame, false
}

// Close closes the connection once.
func (c *faultConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	return c.Conn.Close()
}
