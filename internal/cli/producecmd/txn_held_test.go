package producecmd

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/report"
)

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
		h.put(1, &report.Record{Source: "b.txt", Number: n, Topic: "t", Partition: 2, Offset: n * 10}, false)
	}
	boom := errors.New("boom")
	h.put(0, &report.Record{Source: "a.txt", Number: 4, Topic: "u", Partition: -1, Offset: -1, Err: boom, Key: []byte("k")}, false)
	h.put(0, &report.Record{Source: "a.txt", Number: 2, Topic: "t", Partition: 1, Offset: 7}, false)
	h.put(0, &report.Record{Source: "a.txt", Number: 1, Topic: "t", Partition: 1, Offset: 6}, false)

	var got []report.Record
	n := h.each(sources, func(r *report.Record) { got = append(got, *r) })
	require.Equal(t, 5003, n)
	require.Len(t, got, 5003)
	assert.Equal(t, report.Record{Source: "a.txt", Number: 1, Topic: "t", Partition: 1, Offset: 6}, got[0])
	assert.Equal(t, report.Record{Source: "a.txt", Number: 2, Topic: "t", Partition: 1, Offset: 7}, got[1])
	assert.Equal(t, report.Record{Source: "a.txt", Number: 4, Topic: "u", Partition: -1, Offset: -1, Err: boom}, got[2], "key not kept")
	for i, r := range got[3:] {
		assert.Equal(t, report.Record{Source: "b.txt", Number: int64(i + 1), Topic: "t", Partition: 2, Offset: int64(i+1) * 10}, r)
	}
}

func TestHeldReportsKeepBytesAndUnnoted(t *testing.T) {
	var h heldReports
	h.note(0, 1)
	key := []byte("key")
	h.put(0, &report.Record{Source: "-", Number: 1, Topic: "t", Key: key, Value: []byte{}}, true)
	key[0] = 'X' // the caller's buffer is reused
	h.put(0, &report.Record{Source: "-", Number: 9, Topic: "t"}, true)
	var got []report.Record
	h.each([]string{"-"}, func(r *report.Record) { got = append(got, *r) })
	require.Len(t, got, 2)
	assert.Equal(t, []byte("key"), got[0].Key)
	assert.NotNil(t, got[0].Value, "an empty value stays empty, not null")
	assert.Nil(t, got[1].Value)
	assert.Equal(t, int64(9), got[1].Number, "a record never noted comes last")
}
