package checkcmd

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/fetcher"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// readBackWait is how long one fetch may wait for a canary not yet
// readable, and readBackAttempt how long one attempt at a canary may take
// (its retries included) before the canaries behind it get their turn.
const (
	readBackWait    = 200 * time.Millisecond
	readBackAttempt = time.Second
)

// readBack reads every acknowledged canary back from its partition's
// leader, as soon as it is acknowledged, proving that what was written can
// be read. A canary's read latency runs from its send to the fetch that
// returned it (the produce-to-consume latency). Canaries take turns: one
// whose partition cannot serve it is tried again after the others, so it
// delays no other partition by more than one attempt.
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

// loop tries the acknowledged canaries in turn until each is read back or
// failed, and the acknowledgements are over.
func (rb *readBack) loop(ctx context.Context) {
	var pending []int
	lastErr := map[int]error{}
	acked := rb.acked
	for acked != nil || len(pending) > 0 {
		if len(pending) == 0 {
			i, ok := <-acked
			if !ok {
				return
			}
			pending = append(pending, i)
		}
		for more := true; more && acked != nil; { // take in what was acknowledged meanwhile
			select {
			case i, ok := <-acked:
				if !ok {
					acked = nil
				} else {
					pending = append(pending, i)
				}
			default:
				more = false
			}
		}
		i := pending[0]
		pending = pending[1:]
		if err := rb.attempt(ctx, i); err != nil {
			lastErr[i] = err
			if ctx.Err() != nil {
				rb.run.readDone(i, time.Time{}, err)
				continue
			}
			pending = append(pending, i) // its turn again after the others
		}
	}
}

// attempt tries to read canary i back for up to readBackAttempt. It
// records the outcome and returns nil when there is one (read back, not
// the canary, or a permanent error), and returns the error to retry
// after.
func (rb *readBack) attempt(ctx context.Context, i int) error {
	r := rb.run
	r.mu.Lock()
	c := r.canaries[i]
	r.mu.Unlock()
	actx, cancel := context.WithTimeout(ctx, readBackAttempt)
	defer cancel()
	for {
		p, err := rb.fetch(actx, c.partition, c.offset)
		switch {
		case err != nil && actx.Err() == nil:
			r.readDone(i, time.Time{}, err) // a permanent error
			return nil
		case err != nil:
			return err
		case p.found:
			r.readDone(i, time.Now(), r.checkCanary(c, p))
			return nil
		case actx.Err() != nil:
			return fmt.Errorf("no record at offset %d yet", c.offset)
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
