package producecmd

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/sender"
)

// held is a held report as each gives it back.
type held struct {
	source    string
	number    int64
	topic     string
	partition int32
	offset    int64
	key       []byte
	value     []byte
	err       error
}

// heldRecord is a record read as number of input i (named source).
func heldRecord(i int, source string, number int64, r sender.Record) *sender.Record {
	r.Opaque = &input.Origin{Chunk: &input.Chunk{Input: i, Source: source}, Number: number}
	return &r
}

// collect returns each's reports.
func collect(h *heldReports, sources []string) (int, []held) {
	var got []held
	n := h.each(sources, func(r *sender.Record, err error) {
		o := r.Opaque.(*input.Origin)
		got = append(got, held{o.Source, o.Number, r.Topic, r.Partition, r.Offset, r.Key, r.Value, err})
	})
	return n, got
}

func TestHeldReportsInInputOrder(t *testing.T) {
	sources := []string{"a.txt", "b.txt"}
	var h heldReports
	// Read: a.txt 1, 2, (3 skipped), 4, then b.txt 1..5000 (across blocks).
	for _, n := range []int64{1, 2, 4} {
		h.note(0, n)
	}
	for n := int64(1); n <= 5000; n++ {
		h.note(1, n)
	}
	// Reports arrive in another order.
	for n := int64(5000); n >= 1; n-- {
		h.put(heldRecord(1, "b.txt", n, sender.Record{Topic: "t", Partition: 2, Offset: n * 10}), nil, false)
	}
	boom := errors.New("boom")
	h.put(heldRecord(0, "a.txt", 4, sender.Record{Topic: "u", Partition: -1, Offset: -1, Key: []byte("k")}), boom, false)
	h.put(heldRecord(0, "a.txt", 2, sender.Record{Topic: "t", Partition: 1, Offset: 7}), nil, false)
	h.put(heldRecord(0, "a.txt", 1, sender.Record{Topic: "t", Partition: 1, Offset: 6}), nil, false)

	n, got := collect(&h, sources)
	require.Equal(t, 5003, n)
	require.Len(t, got, 5003)
	assert.Equal(t, held{source: "a.txt", number: 1, topic: "t", partition: 1, offset: 6}, got[0])
	assert.Equal(t, held{source: "a.txt", number: 2, topic: "t", partition: 1, offset: 7}, got[1])
	assert.Equal(t, held{source: "a.txt", number: 4, topic: "u", partition: -1, offset: -1, err: boom}, got[2], "key not kept")
	for i, r := range got[3:] {
		assert.Equal(t, held{source: "b.txt", number: int64(i + 1), topic: "t", partition: 2, offset: int64(i+1) * 10}, r)
	}
}

func TestHeldReportsKeepBytesAndUnnoted(t *testing.T) {
	var h heldReports
	h.note(0, 1)
	key := []byte("key")
	h.put(heldRecord(0, "-", 1, sender.Record{Topic: "t", Key: key, Value: []byte{}}), nil, true)
	key[0] = 'X' // the caller's buffer is reused
	h.put(heldRecord(0, "-", 9, sender.Record{Topic: "t"}), nil, true)
	_, got := collect(&h, []string{"-"})
	require.Len(t, got, 2)
	assert.Equal(t, []byte("key"), got[0].key)
	assert.NotNil(t, got[0].value, "an empty value stays empty, not null")
	assert.Nil(t, got[1].value)
	assert.Equal(t, int64(9), got[1].number, "a record never noted comes last")
}
