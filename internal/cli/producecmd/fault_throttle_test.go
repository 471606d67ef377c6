package producecmd_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// brokerEvent is a request read by a broker, or a throttled response it
// wrote.
type brokerEvent struct {
	at        time.Time
	throttled bool
}

// throttleLog records, for one broker, the requests it reads and the
// Produce responses it throttles.
type throttleLog struct {
	node     atomic.Int32 // the throttling broker, set once the cluster runs
	throttle time.Duration
	left     int // responses still to throttle

	mu     sync.Mutex // guards events and left
	events []brokerEvent
}

// hooks makes the broker answer its Produce responses, from the 5th
// request on, with ThrottleMillis set, left times.
func (l *throttleLog) hooks(fc *faultCluster) faultHooks {
	return faultHooks{
		onRequest: func(node int32, _ int16, at time.Time) {
			if node != l.node.Load() {
				return
			}
			l.mu.Lock()
			l.events = append(l.events, brokerEvent{at: at})
			l.mu.Unlock()
		},
		onProduceResponse: func(node int32, resp *kmsg.ProduceResponse) bool {
			l.mu.Lock()
			defer l.mu.Unlock()
			if node != l.node.Load() || l.left == 0 || len(l.events) < 5 {
				return false
			}
			l.left--
			resp.ThrottleMillis = int32(l.throttle.Milliseconds())
			l.events = append(l.events, brokerEvent{at: time.Now(), throttled: true})
			fc.noteInjected()
			return false
		},
	}
}

// gaps returns, for each throttled response, how long the broker waited
// for the client's next request; a throttled response after which no
// request came is left out.
func (l *throttleLog) gaps() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []time.Duration
	for i, e := range l.events {
		if !e.throttled {
			continue
		}
		for _, next := range l.events[i+1:] {
			if !next.throttled {
				out = append(out, next.at.Sub(e.at))
				break
			}
		}
	}
	return out
}

// TestFaultThrottle has the leader of partition 0 answer some Produce requests with a
// throttle time (KIP-219: from Produce v6 the broker answers at once and
// the client must not send to that broker before the time has passed).
// With one request in flight per connection, every request the broker
// reads after a throttled answer was sent after the client received it.
func TestFaultThrottle(t *testing.T) {
	t.Parallel()
	for _, idem := range []bool{true, false} {
		name := "idempotent"
		if !idem {
			name = "not-idempotent"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := newFaultInput(faultRecordCount()/2, faultDistinctKeys)
			tl := &throttleLog{throttle: 300 * time.Millisecond, left: 3}
			tl.node.Store(-1)
			leaderOfP0 := func(_ *testing.T, fc *faultCluster) { tl.node.Store(fc.LeaderFor(fc.topic, 0)) }
			sc := faultScenario{hooks: tl.hooks, setup: leaderOfP0, args: []string{"--max-in-flight", "1"}}
			runScenario(t, sc, in, idem)
			gaps := tl.gaps()
			require.NotEmpty(t, gaps, "no request followed a throttled response")
			for i, g := range gaps {
				// A little slack for the clocks of the two sides.
				assert.GreaterOrEqual(t, g, tl.throttle-10*time.Millisecond,
					"request %d after a throttled response came %s later, throttle %s", i+1, g, tl.throttle)
			}
		})
	}
}
