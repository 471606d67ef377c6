package sender

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// accRecords is recs in the accumulator's form, as SendRun takes them.
func accRecords(recs []Record) []accumulator.Record {
	out := make([]accumulator.Record, len(recs))
	for i, r := range recs {
		out[i] = accumulator.Record{Timestamp: r.Timestamp, Key: r.Key, Value: r.Value, Headers: r.Headers, Position: r.Position}
	}
	return out
}

// TestSendRunPlacesRecordsAsSendDoes: unkeyed records, keyed ones, a mix
// of both, records for one partition, with the sticky partitioner and
// round-robin, land where Send one by one puts them, each reported once.
func TestSendRunPlacesRecordsAsSendDoes(t *testing.T) {
	topics := map[string]int32{"t": 3}
	tests := []struct {
		name        string
		partition   int32
		shape       func(i int, r *Record)
		partitioner func() accumulator.Partitioner
	}{
		{name: "unkeyed", partition: -1},
		{name: "keyed", partition: -1, shape: func(i int, r *Record) { r.Key = []byte(fmt.Sprintf("key-%d", i%7)) }},
		{name: "mixed", partition: -1, shape: func(i int, r *Record) {
			if i%3 == 0 {
				r.Key = []byte{byte(i)}
			}
		}},
		{name: "partition", partition: 2, shape: func(i int, r *Record) { r.Key = []byte{byte(i)} }},
		{name: "round-robin", partition: -1, partitioner: accumulator.NewRoundRobinPartitioner},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fixtureOptions{topics: topics, config: configs(nonIdempotent, recordsPerBatch(4), func(c *Config) {
				if tt.partitioner != nil {
					c.Partitioner = tt.partitioner()
				}
			})}
			shape := func(i int, r *Record) {
				r.Partition = tt.partition
				if tt.shape != nil {
					tt.shape(i, r)
				}
			}
			one := newFixture(t, opts)
			one.sendEach(one.records("t", 30, shape))
			one.deliverAll()

			run := newFixture(t, opts)
			recs := accRecords(run.records("t", 30, shape))
			n, err := run.p.SendRun(context.Background(), "t", tt.partition, run.now(), recs, func(i int, err error) {
				t.Errorf("record %d refused: %v", i, err)
			})
			require.NoError(t, err)
			assert.Equal(t, len(recs), n)
			run.deliverAll()
			assert.Equal(t, one.logs(topics), run.logs(topics))
			run.requireExactlyOnce()
		})
	}
}

// TestSendRunRefusals: a partition the topic lacks refuses every record;
// a record too large is refused alone; records without a timestamp take
// the read time's.
func TestSendRunRefusals(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: nonIdempotent})
	recs := accRecords(f.records("t", 3, nil))
	refused := map[int]error{}
	n, err := f.p.SendRun(context.Background(), "t", 7, f.now(), recs, func(i int, err error) { refused[i] = err })
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	require.Len(t, refused, 3)
	for _, err := range refused {
		assert.ErrorIs(t, err, ErrUnknownPartition)
	}

	recs = accRecords(f.records("t", 3, nil))
	recs[1].Value = make([]byte, 2<<20)
	recs[2].Timestamp = 42
	clear(refused)
	readAt := f.now().Add(-testLinger)
	n, err = f.p.SendRun(context.Background(), "t", -1, readAt, recs, func(i int, err error) { refused[i] = err })
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	require.Len(t, refused, 1)
	assert.ErrorIs(t, refused[1], ErrRecordTooLarge)
	f.deliverAll2(recs[0].Position, recs[2].Position)
	assert.Equal(t, readAt.UnixMilli(), f.outcome(recs[0].Position).timestamp)
	assert.Equal(t, int64(42), f.outcome(recs[2].Position).timestamp)

	f.p.sender.closing.Store(true)
	n, err = f.p.SendRun(context.Background(), "t", -1, f.now(), accRecords(f.records("t", 1, nil)), nil)
	assert.ErrorIs(t, err, ErrClosed)
	assert.Zero(t, n)
}
