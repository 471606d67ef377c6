package protocol

import (
	"encoding/binary"
	"testing"
)

func TestUvarintLenMatchesEncoding(t *testing.T) {
	var buf [binary.MaxVarintLen64]byte
	for shift := 0; shift < 64; shift++ {
		for _, u := range []uint64{1<<shift - 1, 1 << shift, 1<<shift + 1} {
			if got, want := uvarintLen(u), binary.PutUvarint(buf[:], u); got != want {
				t.Fatalf("uvarintLen(%d) = %d, want %d", u, got, want)
			}
		}
	}
	if got := uvarintLen(^uint64(0)); got != 10 {
		t.Fatalf("uvarintLen(max) = %d, want 10", got)
	}
}
