package sender

import (
	"context"
	"sync/atomic"
)

// Position identifies a test record: each record's Opaque, under which
// its outcome is recorded.
type Position struct {
	Source int32
	Record int64
}

// posOf is the Position of a record.
func posOf(r Record) Position { return r.Opaque.(Position) }

// produceTo hands rec, its Opaque set to pos, to p with Produce. A record
// refused at once (its promise called before Produce returned) is not
// given to promise: produceTo returns its error, as a caller checking for
// a refusal would see it. promise may be nil.
func produceTo(p *Producer, ctx context.Context, rec *Record, pos Position, promise ...func(*Record, error)) error {
	rec.Opaque = pos
	var returned atomic.Bool
	var refused error
	p.Produce(ctx, rec, func(r *Record, err error) {
		if !returned.Load() && err != nil {
			refused = err
			return
		}
		for _, fn := range promise {
			fn(r, err)
		}
	})
	returned.Store(true)
	return refused
}

// ptrsOf points at each of recs, for ProduceBatch.
func ptrsOf(recs []Record) []*Record {
	out := make([]*Record, len(recs))
	for i := range recs {
		out[i] = &recs[i]
	}
	return out
}
