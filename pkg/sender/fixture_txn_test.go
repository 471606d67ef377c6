package sender

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// The transaction coordinator side of the fixture: FindCoordinator,
// InitProducerId, AddPartitionsToTxn and EndTxn are answered with success
// unless the test scripted other answers first.

const testTransactionalID = "txn-1"

// txnScript holds the scripted answers of the coordinator.
type txnScript struct {
	mu          sync.Mutex
	answers     map[protocol.APIKey][]networktest.Responder
	coordinator int32 // the node FindCoordinator names by default
}

// push scripts the next answers to requests of key, in order.
func (sc *txnScript) push(key protocol.APIKey, answers ...networktest.Responder) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.answers[key] = append(sc.answers[key], answers...)
}

// next pops the next scripted answer of key, nil when there is none.
func (sc *txnScript) next(key protocol.APIKey) networktest.Responder {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	q := sc.answers[key]
	if len(q) == 0 {
		return nil
	}
	sc.answers[key] = q[1:]
	return q[0]
}

// setCoordinator changes the node FindCoordinator names by default.
func (sc *txnScript) setCoordinator(node int32) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.coordinator = node
}

// transactional makes the producer transactional.
func transactional(c *config) { c.TransactionalID = testTransactionalID }

// newTxnFixture is newFixture for a transactional producer with its
// coordinator; setup runs before the producer starts, so answers scripted
// there apply to the first requests.
func newTxnFixture(t *testing.T, opts fixtureOptions, setup func(*txnScript)) (*fixture, *txnScript) {
	t.Helper()
	sc := &txnScript{answers: make(map[protocol.APIKey][]networktest.Responder), coordinator: 1}
	opts.config = configs(transactional, orNothing(opts.config))
	opts.setup = func(f *fixture) {
		sc.install(f)
		if setup != nil {
			setup(sc)
		}
	}
	return newFixture(t, opts), sc
}

func orNothing(fn func(*config)) func(*config) {
	if fn == nil {
		return func(*config) {}
	}
	return fn
}

// install answers the transactional requests.
func (sc *txnScript) install(f *fixture) {
	answer := func(key protocol.APIKey, def networktest.Responder) {
		f.sel.AutoRespond(key, func(req networktest.SentRequest) protocol.Response {
			if r := sc.next(key); r != nil {
				return r(req)
			}
			return def(req)
		})
	}
	answer(protocol.KeyFindCoordinator, func(networktest.SentRequest) protocol.Response {
		sc.mu.Lock()
		defer sc.mu.Unlock()
		return coordinatorResponse(sc.coordinator, 0)
	})
	answer(protocol.KeyInitProducerId, func(networktest.SentRequest) protocol.Response {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.inits++
		pid := f.nextPID
		f.nextPID++
		return &protocol.InitProducerIdResponse{ProducerID: pid, ProducerEpoch: 0}
	})
	answer(protocol.KeyAddPartitionsToTxn, addPartitionsAnswer(nil))
	answer(protocol.KeyEndTxn, endTxnAnswer(nil))
}

// coordinatorResponse names node as the coordinator, in the form of every
// version, with an error code.
func coordinatorResponse(node int32, code int16) *protocol.FindCoordinatorResponse {
	return &protocol.FindCoordinatorResponse{ErrorCode: code, NodeID: node, Host: "127.0.0.1", Port: 9090 + node,
		Coordinators: []protocol.FindCoordinatorResponseCoordinator{
			{Key: testTransactionalID, NodeID: node, Host: "127.0.0.1", Port: 9090 + node, ErrorCode: code},
		}}
}

// findCoordinatorAnswer answers FindCoordinator with node and an error.
func findCoordinatorAnswer(node int32, e *protocol.Error) networktest.Responder {
	return func(networktest.SentRequest) protocol.Response { return coordinatorResponse(node, codeOf(e)) }
}

// initAnswer answers InitProducerId with an error.
func initAnswer(e *protocol.Error) networktest.Responder {
	return func(networktest.SentRequest) protocol.Response {
		return &protocol.InitProducerIdResponse{ErrorCode: codeOf(e), ProducerID: -1, ProducerEpoch: -1}
	}
}

// addPartitionsAnswer answers every partition of an AddPartitionsToTxn
// request with e (nil: success).
func addPartitionsAnswer(e *protocol.Error) networktest.Responder {
	return func(req networktest.SentRequest) protocol.Response {
		body := req.Body.(*protocol.AddPartitionsToTxnRequest)
		resp := &protocol.AddPartitionsToTxnResponse{}
		for _, t := range body.Topics {
			r := protocol.AddPartitionsToTxnTopicResult{Name: t.Name}
			for _, p := range t.Partitions {
				r.Results = append(r.Results, protocol.AddPartitionsToTxnPartitionResult{PartitionIndex: p, PartitionErrorCode: codeOf(e)})
			}
			resp.Results = append(resp.Results, r)
		}
		return resp
	}
}

// endTxnAnswer answers EndTxn with e (nil: success).
func endTxnAnswer(e *protocol.Error) networktest.Responder {
	return func(networktest.SentRequest) protocol.Response { return &protocol.EndTxnResponse{ErrorCode: codeOf(e)} }
}

func codeOf(e *protocol.Error) int16 {
	if e == nil {
		return 0
	}
	return e.Code
}

// sentOf returns the requests of key sent so far, oldest first.
func (f *fixture) sentOf(key protocol.APIKey) []networktest.SentRequest {
	var out []networktest.SentRequest
	for _, s := range f.sel.AllSent() {
		if s.Header.APIKey == key {
			out = append(out, s)
		}
	}
	return out
}

// txnKeys lists, in order, the API keys of the transactional and Produce
// requests sent.
func (f *fixture) txnKeys() []protocol.APIKey {
	var out []protocol.APIKey
	for _, s := range f.sel.AllSent() {
		switch k := s.Header.APIKey; k {
		case protocol.KeyFindCoordinator, protocol.KeyInitProducerId, protocol.KeyAddPartitionsToTxn, protocol.KeyProduce, protocol.KeyEndTxn:
			out = append(out, k)
		}
	}
	return out
}

// endAsync runs a commit (or an abort) on its own goroutine.
func (f *fixture) endAsync(commit bool) <-chan error {
	done := make(chan error, 1)
	go func() {
		if commit {
			done <- f.p.CommitTransaction(context.Background())
		} else {
			done <- f.p.AbortTransaction(context.Background())
		}
	}()
	return done
}

// stepUntil steps the Sender (moving the clock by advance each turn) until
// a value arrives on done, and returns it.
func stepUntil[T any](f *fixture, done <-chan T, advance time.Duration) T {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case v := <-done:
			return v
		default:
		}
		if time.Now().After(deadline) {
			f.t.Fatal("gave up stepping: no result")
		}
		f.advance(advance)
		f.step()
		runtime.Gosched()
	}
}
