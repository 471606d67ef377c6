package sender

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlushSendsAtOnceAndWaits: Flush makes lingering batches sendable and
// returns once every record appended before it has an outcome.
func TestFlushSendsAtOnceAndWaits(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: func(c *config) { c.Accumulator.Linger = time.Hour }})
	positions := append(f.sendN("t", 0, 2), f.send("t", 1))
	f.requireNoProduce("lingering")
	wakeups := f.sel.Wakeups()
	flushed := make(chan error, 1)
	go func() { flushed <- f.p.Flush(context.Background()) }()
	waitUntil(t, "the flush to begin", func() bool { return f.sel.Wakeups() > wakeups })

	req := f.stepUntilProduce()[0]
	require.Len(t, f.batches(req), 2, "both partitions, without waiting for the linger")
	select {
	case err := <-flushed:
		t.Fatalf("Flush returned %v before the records completed", err)
	default:
	}
	f.respondAll(req, success)
	f.step()
	require.NoError(t, receive(t, flushed, "Flush"))
	for _, p := range positions {
		require.NoError(t, f.outcome(p).err)
	}
	f.requireExactlyOnce()
}

// TestFlushHonoursContext: a Flush whose context ends returns its error.
func TestFlushHonoursContext(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.send("t", 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, f.p.Flush(ctx), context.Canceled)
	f.advance(testLinger)
	f.respondAll(f.stepUntilProduce()[0], success)
	f.step()
	f.requireExactlyOnce()
}

// TestCloseWaitsForEverything: Close delivers what was appended (even
// lingering batches) and returns once everything has an outcome; later
// Sends fail.
func TestCloseWaitsForEverything(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 3}, config: func(c *config) { c.Accumulator.Linger = time.Hour }})
	f.autoProduce()
	for p := int32(0); p < 3; p++ {
		f.sendN("t", p, 3)
	}
	go f.s.run()
	require.NoError(t, f.p.Close(context.Background()))
	for p := int32(0); p < 3; p++ {
		assert.Len(t, f.log(tp("t", p)), 3)
	}
	f.requireExactlyOnce()
	for r := int64(1); r <= 9; r++ {
		require.NoError(t, f.outcomesOf(positionOf(r))[0].err)
	}
	err := f.produce(context.Background(), &Record{Topic: "t", Partition: 0, Value: []byte("late")}, positionOf(99))
	require.ErrorIs(t, err, ErrClosed)
	assert.True(t, f.sel.ClosedAll(), "connections closed")
	require.NoError(t, f.p.Close(context.Background()), "closing twice")
}

func positionOf(r int64) Position { return Position{Source: 1, Record: r} }

// TestCloseWithExpiredContext: when Close's context ends first, every
// record still pending, queued or in flight, fails once with ErrClosed.
func TestCloseWithExpiredContext(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: recordsPerBatch(2)})
	inFlight := f.sendN("t", 0, 2)
	f.respondAll(f.stepUntilProduce()[0], success) // delivered before Close
	f.step()
	inFlight = append(inFlight, f.sendN("t", 0, 2)...)
	f.stepUntilProduce() // never answered
	queued := f.sendN("t", 1, 1)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	go f.s.run()
	require.ErrorIs(t, f.p.Close(ctx), context.Canceled)
	for _, p := range inFlight[:2] {
		require.NoError(t, f.outcome(p).err)
	}
	for _, p := range append(inFlight[2:], queued...) {
		require.ErrorIs(t, f.outcome(p).err, ErrClosed)
	}
	f.requireExactlyOnce()
	err := f.produce(context.Background(), &Record{Topic: "t", Partition: 0, Value: []byte("late")}, positionOf(99))
	require.ErrorIs(t, err, ErrClosed)
}

// TestCloseReleasesSendsBlockedOnMemory: a Send waiting for buffer memory
// returns ErrClosed when the producer closes; its record never reaches the
// callback.
func TestCloseReleasesSendsBlockedOnMemory(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: func(c *config) {
		c.Accumulator.BatchSize = 1024
		c.Accumulator.BufferMemory = 1024 // the first batch takes it all
	}})
	f.send("t", 0)
	select {
	case <-f.p.acc.Wakeup(): // the new batch's signal
	default:
	}
	errc := make(chan error, 1)
	go func() {
		errc <- f.produce(context.Background(), &Record{Topic: "t", Partition: 1, Value: []byte("x")}, Position{Source: 2})
	}()
	receive(t, f.p.acc.Wakeup(), "Send to wait for memory")

	closed := make(chan error, 1)
	go func() { closed <- f.p.Close(context.Background()) }()
	err := receive(t, errc, "the blocked Send") // the Sender is not running: no memory can be freed
	require.ErrorIs(t, err, ErrClosed)
	f.autoProduce()
	go f.s.run()
	require.NoError(t, receive(t, closed, "Close"))
	f.requireExactlyOnce()
}
