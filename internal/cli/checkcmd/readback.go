package checkcmd

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/fetcher"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// readBackWait is how long one fetch may wait for a canary not yet
// readable.
const readBackWait = 200 * time.Millisecond

// readBack reads every acknowledged canary back from its partition's
// leader, as soon as it is acknowledged, proving that what was written can
// be read. A canary's read latency runs from its send to the fetch that
// returned it (the produce-to-consume latency). Each canary is read on a
// goroutine of its own, and the fetcher lets other fetches go while one
// waits to retry, so a partition that cannot serve its canary delays no
// other.
type readBack struct {
	client *fetcher.Fetcher
	run    *canaryRun
	acked  chan int // canaries acknowledged, by index; closed once all have an outcome
	done   chan struct{}
}

// startReadBack starts reading back the canaries of run as they are
// acknowledged, until ctx ends.
func startReadBack(ctx context.Context, client *admin.Client, run *canaryRun) *readBack {
	rb := &readBack{client: fetcher.New(client), run: run, acked: make(chan int, len(run.canaries)), done: make(chan struct{})}
	run.acked = rb.acked
	go func() {
		defer close(rb.done)
		rb.loop(ctx)
	}()
	return rb
}

// wait waits until every acknowledged canary was read back, or failed
// to be (bounded by the context of startReadBack).
func (rb *readBack) wait() {
	close(rb.acked)
	<-rb.done
}

// loop reads each acknowledged canary back on a goroutine of its own,
// until the acknowledgements are over and every canary has its outcome.
func (rb *readBack) loop(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range rb.acked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rb.readCanary(ctx, i)
		}()
	}
	wg.Wait()
}

// readCanary reads canary i back until it is found, a permanent error
// says it cannot be, or ctx ends, and records the outcome.
func (rb *readBack) readCanary(ctx context.Context, i int) {
	r := rb.run
	r.mu.Lock()
	c := r.canaries[i]
	r.mu.Unlock()
	for {
		p, err := rb.fetch(ctx, c.partition, c.offset)
		switch {
		case err != nil:
			r.readDone(i, time.Time{}, err) // permanent, or still failing at the deadline
			return
		case p.found:
			r.readDone(i, time.Now(), r.checkCanary(c, p))
			return
		case ctx.Err() != nil:
			r.readDone(i, time.Time{}, fmt.Errorf("no record at offset %d yet: %w", c.offset, ctx.Err()))
			return
		}
	}
}

// fetchedPartition is what one fetch returned at a canary's offset.
type fetchedPartition struct {
	found   bool // a record at the offset was returned
	key     []byte
	value   []byte
	headers []protocol.Header
}

// fetch reads partition p at offset (read_uncommitted: a canary is in no
// transaction, and another producer's open transaction must not hide it).
func (rb *readBack) fetch(ctx context.Context, p int32, offset int64) (*fetchedPartition, error) {
	got, err := rb.client.Fetch(ctx, fetcher.Options{Topic: rb.run.topic, Partition: p, Offset: offset,
		Isolation: protocol.IsolationReadUncommitted, MaxBytes: 64 << 10, MaxWait: readBackWait})
	if err != nil {
		return nil, err
	}
	for _, rec := range got.Records {
		if rec.Offset == offset {
			return &fetchedPartition{found: true, key: rec.Key, value: rec.Value, headers: rec.Headers}, nil
		}
		if rec.Offset > offset {
			return nil, fmt.Errorf("offset %d is gone: the partition goes on at %d", offset, rec.Offset)
		}
	}
	return &fetchedPartition{}, nil
}

// checkCanary checks that the record read back is the canary sent.
func (r *canaryRun) checkCanary(c canary, p *fetchedPartition) error {
	var run []byte
	for _, h := range p.headers {
		if h.Key == CanaryHeader {
			run = h.Value
		}
	}
	if !bytes.Equal(run, []byte(r.runID)) || !bytes.Equal(p.value, c.value) {
		return fmt.Errorf("the record at offset %d is not the canary sent (value %q, %s %q)",
			c.offset, p.value, CanaryHeader, run)
	}
	return nil
}
