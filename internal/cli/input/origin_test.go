package input

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOriginsGoBackAfterTheirLastUser: Origins return to their pool only
// once every user released them, and are then handed out again, set anew
// for the next read.
func TestOriginsGoBackAfterTheirLastUser(t *testing.T) {
	var pool OriginPool
	at := time.Unix(1_700_000_000, 0)
	recs := []Record{{Number: 7}, {Number: 8}}
	o := pool.Take(1, "a.txt", at, recs)
	require.Equal(t, Origin{Chunk: &o.Chunk, Number: 8}, o.List[1])
	require.Equal(t, Chunk{Input: 1, Source: "a.txt", ReadAt: at}, *o.List[0].Chunk)
	o.Hold()
	o.Hold()
	o.Release() // the read
	o.ReleaseFunc()()
	require.Empty(t, pool.free, "one user left")
	require.NotSame(t, o, pool.Take(0, "b.txt", at, recs[:1]), "still in use: not handed out")
	o.Release()
	require.Len(t, pool.free, 1)

	again := pool.Take(2, "c.txt", at.Add(time.Second), recs[1:])
	require.Same(t, o, again, "reused")
	require.Equal(t, []Origin{{Chunk: &again.Chunk, Number: 8}}, again.List)
	require.Equal(t, "c.txt", again.List[0].Source)
}
