package sender

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// The fixture steps a Producer's Sender by hand: a MockSelector plays the
// brokers (connections complete at once, ApiVersions and Metadata are
// answered automatically), a ManualClock is the only time, and every
// record outcome is collected by Position (each record's Opaque).

const (
	testRequestTimeout  = 30 * time.Second
	testLinger          = 10 * time.Millisecond
	testRetryBackoff    = 100 * time.Millisecond
	testDeliveryTimeout = 2 * time.Minute
	firstProducerID     = int64(1000)
)

// outcome is a copy of one callback's Result.
type outcome struct {
	tp        accumulator.TopicPartition
	offset    int64
	timestamp int64
	value     string
	err       error
}

// fixtureOptions shape the cluster and the configuration.
type fixtureOptions struct {
	brokers int              // nodes 1..brokers
	topics  map[string]int32 // topic -> partition count; leader of p is node p%brokers+1
	config  func(*config)
	// cluster, when set, adjusts the metadata the brokers report.
	cluster func(*protocol.MetadataResponse)
	// manualInit leaves InitProducerId unanswered: the test answers it.
	manualInit bool
	// setup, when set, runs before the producer starts (to add responders).
	setup func(*fixture)
}

// fixture is a Producer over a MockSelector and a ManualClock.
type fixture struct {
	t     *testing.T
	clock *networktest.ManualClock
	sel   *networktest.MockSelector
	p     *Producer
	s     *sender

	mu       sync.Mutex // guards the fields below: the Sender may run on its own goroutine
	cluster  *protocol.MetadataResponse
	outcomes map[Position][]outcome
	order    []Position
	nextPID  int64
	inits    int
	// pollWait is how far the clock moves during the next poll, as if the
	// poll had waited that long.
	pollWait time.Duration

	nextPos  int64
	seen     int                                  // produce requests already returned by nextProduce
	logEnd   map[accumulator.TopicPartition]int64 // next offset per partition, as a broker keeps it
	produced map[accumulator.TopicPartition][]string
}

// testConfig is a deterministic configuration: fixed jitter and node
// choice, small timeouts, no compression.
func testConfig() config {
	cfg := defaultConfig()
	cfg.Bootstrap = []string{"127.0.0.1:9090"}
	cfg.RequestTimeout = testRequestTimeout
	cfg.MaxBlock = time.Hour
	one := func() float64 { return 1 }
	cfg.Network.Jitter = one
	cfg.Network.Rand = func(int) int { return 0 }
	cfg.Metadata.Jitter = one
	cfg.Accumulator.Jitter = one
	cfg.Accumulator.Linger = testLinger
	cfg.Accumulator.RetryBackoff = testRetryBackoff
	cfg.Accumulator.RetryBackoffMax = time.Second
	cfg.Accumulator.DeliveryTimeout = testDeliveryTimeout
	cfg.Accumulator.ResultRecords = true
	// Batches are compressed as requests are built, on the stepped
	// goroutine; the worker tests (compression_workers_test.go) wait for
	// their workers.
	cfg.Accumulator.CompressionWorkers = 0
	cfg.Rand = func(int) int { return 0 }
	// Records name their partition, or -1 for the default partitioner.
	cfg.Partitioner = ManualPartitioner(accumulator.NewMurmur2Partitioner(cfg.Rand))
	return cfg
}

// newFixture builds the producer and brings it to the point where it
// knows the cluster (and, with idempotence, has a producer id).
func newFixture(t *testing.T, opts fixtureOptions) *fixture {
	t.Helper()
	if opts.brokers == 0 {
		opts.brokers = 1
	}
	if opts.topics == nil {
		opts.topics = map[string]int32{"t": 1}
	}
	cfg := testConfig()
	if opts.config != nil {
		opts.config(&cfg)
	}
	f := &fixture{
		t:        t,
		clock:    networktest.NewManualClock(time.Unix(1_700_000_000, 0)),
		sel:      networktest.NewMockSelector(),
		outcomes: make(map[Position][]outcome),
		nextPID:  firstProducerID,
		logEnd:   make(map[accumulator.TopicPartition]int64),
		produced: make(map[accumulator.TopicPartition][]string),
	}
	f.cluster = clusterMetadata(opts.brokers, opts.topics)
	if opts.cluster != nil {
		opts.cluster(f.cluster)
	}
	f.sel.AutoReady(nil)
	f.sel.AutoRespond(protocol.KeyMetadata, func(networktest.SentRequest) protocol.Response {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.cluster
	})
	if !opts.manualInit {
		f.sel.AutoRespond(protocol.KeyInitProducerId, func(networktest.SentRequest) protocol.Response {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.inits++
			pid := f.nextPID
			f.nextPID++
			return &protocol.InitProducerIdResponse{ProducerID: pid, ProducerEpoch: 0}
		})
	}
	if opts.setup != nil {
		opts.setup(f)
	}
	p, err := newProducer(cfg, waitingSelector{f.sel, f}, f.clock)
	require.NoError(t, err)
	f.p, f.s = p, p.sender
	t.Cleanup(func() { f.s.client.Close() })
	f.warmUp(cfg.Idempotence && !opts.manualInit)
	return f
}

// configs applies several configuration changes in order.
func configs(fns ...func(*config)) func(*config) {
	return func(c *config) {
		for _, fn := range fns {
			fn(c)
		}
	}
}

// nonIdempotent turns idempotence off.
func nonIdempotent(c *config) { c.Idempotence = false }

// waitingSelector is the MockSelector, whose Poll moves the clock by the
// fixture's pollWait once.
type waitingSelector struct {
	*networktest.MockSelector
	f *fixture
}

// Poll moves the clock, then polls the MockSelector.
func (w waitingSelector) Poll(timeout time.Duration, dst []network.Event) []network.Event {
	w.f.mu.Lock()
	d := w.f.pollWait
	w.f.pollWait = 0
	w.f.mu.Unlock()
	if d > 0 {
		w.f.clock.Advance(d)
	}
	return w.MockSelector.Poll(timeout, dst)
}

// clusterMetadata describes brokers 1..n and the topics; partition p of
// every topic is led by node p%n+1.
func clusterMetadata(n int, topics map[string]int32) *protocol.MetadataResponse {
	resp := &protocol.MetadataResponse{ControllerID: 1}
	for id := int32(1); id <= int32(n); id++ {
		resp.Brokers = append(resp.Brokers, protocol.MetadataResponseBroker{NodeID: id, Host: "127.0.0.1", Port: 9090 + id})
	}
	names := make([]string, 0, len(topics))
	for name := range topics {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		topic := protocol.MetadataResponseTopic{Name: &name}
		for p := int32(0); p < topics[name]; p++ {
			leader := p%int32(n) + 1
			topic.Partitions = append(topic.Partitions, protocol.MetadataResponsePartition{
				PartitionIndex: p, LeaderID: leader, LeaderEpoch: 0, ReplicaNodes: []int32{leader}, IsrNodes: []int32{leader},
			})
		}
		resp.Topics = append(resp.Topics, topic)
	}
	return resp
}

// setLeader changes the leader a later Metadata response reports.
func (f *fixture) setLeader(topic string, partition, leader int32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.cluster.Topics {
		t := &f.cluster.Topics[i]
		if *t.Name != topic {
			continue
		}
		for j := range t.Partitions {
			if p := &t.Partitions[j]; p.PartitionIndex == partition {
				p.LeaderID = leader
				p.LeaderEpoch++
			}
		}
	}
}

// setCluster replaces what later Metadata responses report.
func (f *fixture) setCluster(resp *protocol.MetadataResponse) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cluster = resp
}

// warmUp steps until the metadata knows the topics and, when wanted, the
// producer id is installed; no produce request may be sent meanwhile.
func (f *fixture) warmUp(wantPID bool) {
	f.t.Helper()
	for i := 0; i < 50; i++ {
		if !f.p.md.Fetch().IsBootstrap() && (!wantPID || f.s.idem.pid.valid()) && f.allConnected() {
			require.Empty(f.t, f.allProduce(), "nothing is produced while warming up")
			return
		}
		f.step()
	}
	f.t.Fatalf("the producer did not learn the cluster (pid %+v)", f.s.idem.pid)
}

// allConnected reports whether every broker is ready, starting the
// connections that are not.
func (f *fixture) allConnected() bool {
	all := true
	for _, n := range f.p.md.Fetch().Nodes() {
		if !f.s.client.Ready(n.ID, f.now()) {
			all = false
		}
	}
	return all
}

// promise records a copy of each outcome, under the record's Position.
func (f *fixture) promise(r *Record, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pos := r.Opaque.(Position)
	f.outcomes[pos] = append(f.outcomes[pos], outcome{
		tp:     accumulator.TopicPartition{Topic: r.Topic, Partition: r.Partition},
		offset: r.Offset, timestamp: r.Timestamp.UnixMilli(), value: string(r.Value), err: err,
	})
	f.order = append(f.order, pos)
}

// produce hands rec, at pos, to the producer with Produce: its outcome is
// recorded by promise, unless the producer refused it at once, which
// produce returns.
func (f *fixture) produce(ctx context.Context, rec *Record, pos Position) error {
	return produceTo(f.p, ctx, rec, pos, f.promise)
}

func (f *fixture) now() time.Time              { return f.clock.Now() }
func (f *fixture) advance(d time.Duration)     { f.clock.Advance(d) }
func (f *fixture) step()                       { f.s.runOnce() }
func (f *fixture) advanceStep(d time.Duration) { f.advance(d); f.step() }

// send appends a record with an explicit partition and returns its
// position; its value is value(position).
func (f *fixture) send(topic string, partition int32) Position {
	f.t.Helper()
	pos := f.position()
	rec := &Record{Topic: topic, Partition: partition, Value: []byte(value(pos))}
	require.NoError(f.t, f.produce(context.Background(), rec, pos))
	return pos
}

// value is the value of the record at pos: fixed width, so that every
// record takes recordBytes in a batch.
func value(pos Position) string { return fmt.Sprintf("v%04d", pos.Record) }

// values returns the values of the records at the positions.
func values(positions ...Position) []string {
	out := make([]string, len(positions))
	for i, p := range positions {
		out[i] = value(p)
	}
	return out
}

// recordBytes is the encoded size of a test record (no key, no headers,
// five value bytes, small deltas).
const recordBytes = 12

// recordsPerBatch makes batches hold exactly n test records.
func recordsPerBatch(n int) func(*config) {
	return func(c *config) { c.Accumulator.BatchSize = protocol.RecordBatchHeaderSize + n*recordBytes }
}

// sendN appends n records to one partition.
func (f *fixture) sendN(topic string, partition int32, n int) []Position {
	f.t.Helper()
	out := make([]Position, n)
	for i := range out {
		out[i] = f.send(topic, partition)
	}
	return out
}

// position hands out the next record position.
func (f *fixture) position() Position {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextPos++
	return Position{Source: 1, Record: f.nextPos}
}
