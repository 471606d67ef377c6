package producecmd_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// atProduceRequests runs action when the cluster receives its n-th Produce
// request, for each n in at, before the broker handles that request. The
// action runs inside a kfake control, where the cluster's admin calls
// (MoveTopicPartition, RemoveNode...) are allowed; node is the broker
// that received the request.
func atProduceRequests(fc *faultCluster, at []int, action func(i int, node int32)) {
	var seen atomic.Int64
	fc.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		n := int(seen.Add(1))
		if i := slices.Index(at, n); i >= 0 {
			action(i, fc.CurrentNode())
			fc.noteInjected()
		}
		return nil, nil, false // observe only: the broker answers
	})
}

// moveLeaders moves every partition to the next broker at requests 20, 50
// and 80.
func moveLeaders(t *testing.T, fc *faultCluster) {
	atProduceRequests(fc, []int{20, 50, 80}, func(int, int32) {
		for p, leader := range fc.leaders() {
			if err := fc.MoveTopicPartition(fc.topic, int32(p), (leader+1)%3); err != nil {
				t.Errorf("move partition %d: %v", p, err)
			}
		}
	})
}

// shuffleLeaders elects random leaders for every partition at requests 15,
// 40, 65 and 90.
func shuffleLeaders(_ *testing.T, fc *faultCluster) {
	atProduceRequests(fc, []int{15, 40, 65, 90}, func(int, int32) { fc.ShufflePartitionLeaders() })
}

// restartBroker kills the broker that receives request 30 (it leaves the
// cluster and its connections are closed) and brings it back, same id and
// port, 500 ms later.
func restartBroker(t *testing.T, fc *faultCluster) {
	var wg sync.WaitGroup
	fc.onRunEnd(wg.Wait) // the broker is back before the topic is read
	t.Cleanup(wg.Wait)   // and before the cluster closes: AddNode blocks on a closed cluster
	atProduceRequests(fc, []int{30}, func(_ int, node int32) {
		port, err := fc.port(node)
		if err == nil {
			err = fc.killNode(node)
		}
		if err != nil {
			t.Errorf("kill broker %d: %v", node, err)
			return
		}
		wg.Go(func() {
			// The outage lasts half a second: its length is the
			// scenario (records wait for the broker, then go to it
			// again), not a wait for something to happen.
			time.Sleep(500 * time.Millisecond)
			if err := fc.restartNode(node, port); err != nil {
				t.Errorf("restart broker %d: %v", node, err)
			}
		})
	})
}

// silenceBroker makes the broker that receives request 30 stop answering:
// from then on every request it reads is held, unanswered, until the run
// ends, and its partitions move to the other brokers (the controller's
// answer to a broker that stopped working). The client must time the
// requests out and find the new leaders.
func silenceBroker(t *testing.T, fc *faultCluster) {
	hold := holdRequests(t, fc)
	fc.onRunEnd(hold.release)
	atProduceRequests(fc, []int{30}, func(_ int, node int32) {
		for p, leader := range fc.leaders() {
			if leader == node {
				if err := fc.MoveTopicPartition(fc.topic, int32(p), (node+1)%3); err != nil {
					t.Errorf("move partition %d: %v", p, err)
				}
			}
		}
		hold.silence(node)
	})
}

// silenceForGood makes the broker that receives request 30 stop answering
// and leaves its partitions there: their records fail at the delivery
// timeout. Once the command has exited, the broker handles what it held,
// so records reported failed may be stored after all: their reports must
// say so.
func silenceForGood(t *testing.T, fc *faultCluster) {
	hold := holdRequests(t, fc)
	fc.onRunEnd(hold.release)
	var mu sync.Mutex
	var silenced []int32
	fc.setMayFail(func(r *faultReport) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(silenced, r.Partition)
	})
	atProduceRequests(fc, []int{30}, func(_ int, node int32) {
		mu.Lock()
		for p, leader := range fc.leaders() {
			if leader == node {
				silenced = append(silenced, int32(p))
			}
		}
		mu.Unlock()
		hold.silence(node)
	})
}

// stallBroker makes the broker that receives request 30 hold every request
// for 1.5 s, past the client's request timeout, then handle them all: the
// partitions stay where they are, so the client retries on the same broker
// while the held requests are still to be appended.
func stallBroker(t *testing.T, fc *faultCluster) {
	hold := holdRequests(t, fc)
	var wg sync.WaitGroup
	fc.onRunEnd(wg.Wait)
	t.Cleanup(wg.Wait)
	atProduceRequests(fc, []int{30}, func(_ int, node int32) {
		hold.silence(node)
		wg.Go(func() {
			// The stall lasts 1.5 s, past the request timeout: its length
			// is the scenario, not a wait for something to happen.
			time.Sleep(1500 * time.Millisecond)
			hold.release()
		})
	})
}

// heldRequests holds the requests of one broker while it is silent.
type heldRequests struct {
	t           *testing.T
	fc          *faultCluster
	silent      atomic.Int32 // the silent broker, -1 for none
	heldProduce atomic.Int32 // Produce requests held
	wake        chan struct{}
	once        sync.Once
}

// holdRequests installs a control that holds every request the silent
// broker reads (kfake's SleepControl) until release; held requests are
// then handled as usual.
func holdRequests(t *testing.T, fc *faultCluster) *heldRequests {
	h := &heldRequests{t: t, fc: fc, wake: make(chan struct{})}
	h.silent.Store(-1)
	t.Cleanup(h.release) // kfake's Close wakes held requests too, but only after this
	fc.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		fc.KeepControl()
		if fc.CurrentNode() == h.silent.Load() {
			fc.noteInjected()
			if req.Key() == int16(kmsg.Produce) {
				h.heldProduce.Add(1)
			}
			fc.SleepControl(func() { <-h.wake })
		}
		return nil, nil, false
	})
	return h
}

// silence makes node stop answering.
func (h *heldRequests) silence(node int32) { h.silent.Store(node) }

// release ends the silence and waits until the broker has handled the
// Produce requests it held, so that what they append is in the log
// before the topic is read back.
func (h *heldRequests) release() {
	h.once.Do(func() {
		want := h.fc.produceRequests() + int(h.heldProduce.Load())
		h.silent.Store(-1)
		close(h.wake)
		if !kafkatest.Poll(10*time.Second, func() bool { return h.fc.produceRequests() >= want }) {
			h.t.Errorf("the broker handled %d of %d held Produce requests", h.fc.produceRequests(), want)
		}
	})
}

// chaos mixes faults: leader shuffles, connection drops, lost responses
// and retriable errors on several partitions, all during one run.
func chaos(t *testing.T, fc *faultCluster) {
	shuffleLeaders(t, fc)
	dropConnections(3)(t, fc)
	fc.inject(
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{0},
			Err: kerr.RequestTimedOut, Count: 3, When: afterRequests(fc, 25)},
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{5},
			Err: kerr.NotLeaderForPartition, Count: 3, When: afterRequests(fc, 35)},
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{2, 3},
			Err: kerr.NotEnoughReplicasAfterAppend, Count: 2, When: afterRequests(fc, 45)},
	)
}

// leadershipScenarios change partition leaders during the run; every
// record must still be delivered.
func leadershipScenarios() []faultScenario {
	return []faultScenario{
		{name: "partitions moved", setup: moveLeaders},
		{name: "leaders shuffled", setup: shuffleLeaders},
		{name: "broker killed and restarted", setup: restartBroker},
		{name: "broker stops answering", setup: silenceBroker, args: []string{"--request-timeout", "1s"}},
		{name: "broker stalls past the request timeout", setup: stallBroker, args: []string{"--request-timeout", "1s"}},
		{name: "broker silent past the delivery timeout", setup: silenceForGood,
			args: []string{"--request-timeout", "1s", "--delivery-timeout", deliveryTimeoutArg(5 * time.Second)}},
		{name: "chaos", setup: chaos, hooks: loseResponses(2)},
		{name: "chaos, lz4, one request in flight", setup: chaos, hooks: loseResponses(2),
			args: []string{"-z", "lz4", "--max-in-flight", "1"}},
	}
}

// TestFaultLeadership runs the leadership scenarios with and without
// idempotence.
func TestFaultLeadership(t *testing.T) {
	t.Parallel()
	runScenarioTable(t, leadershipScenarios(), true)
}
