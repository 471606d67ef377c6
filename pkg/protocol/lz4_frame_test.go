package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lz4Blocks walks a frame written by lz4Frame and reports, per block,
// whether it was stored compressed.
func lz4Blocks(t *testing.T, frame []byte) []bool {
	t.Helper()
	require.Equal(t, lz4FrameHeader[:], frame[:len(lz4FrameHeader)])
	rest := frame[len(lz4FrameHeader):]
	var compressed []bool
	for {
		require.GreaterOrEqual(t, len(rest), 4)
		size := binary.LittleEndian.Uint32(rest)
		rest = rest[4:]
		if size == 0 {
			require.Empty(t, rest, "nothing after the end mark")
			return compressed
		}
		n := int(size &^ lz4Uncompressed)
		compressed = append(compressed, size&lz4Uncompressed == 0)
		rest = rest[n:]
	}
}

// TestLZ4FrameHeaderMatchesReference: the constant header, checksum byte
// included, is what the reference implementation writes for the same flags.
func TestLZ4FrameHeaderMatchesReference(t *testing.T) {
	var ref bytes.Buffer
	w := lz4.NewWriter(&ref)
	require.NoError(t, w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false)))
	_, err := w.Write([]byte("header"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	assert.Equal(t, ref.Bytes()[:len(lz4FrameHeader)], lz4FrameHeader[:])
}

func TestLZ4FrameRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 10*lz4BlockSize+123)
	for i := range random {
		random[i] = byte(rnd.Uint32())
	}
	text := bytes.Repeat([]byte("kproduce writes lz4 frames like the Java client\n"), 30000)
	mixed := append(append([]byte{}, random[:5*lz4BlockSize]...), text...)
	for name, src := range map[string][]byte{"empty": nil, "random": random, "text": text, "mixed": mixed, "one byte": {7}} {
		for _, workers := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/%d workers", name, workers), func(t *testing.T) {
				lz4RoundTrip(t, src, workers)
			})
		}
	}
}

// lz4RoundTrip writes src as a frame with workers goroutines and reads it
// back with the reference reader.
func lz4RoundTrip(t *testing.T, src []byte, workers int) {
	t.Helper()
	var f lz4Frame
	frame := f.appendFrame([]byte("prefix"), src, workers)
	require.Equal(t, []byte("prefix"), frame[:6], "appends")
	frame = frame[6:]
	got, err := io.ReadAll(lz4.NewReader(bytes.NewReader(frame)))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(src, got), "decoded by the reference reader")
	blocks := lz4Blocks(t, frame)
	assert.Len(t, blocks, (len(src)+lz4BlockSize-1)/lz4BlockSize)
}

// TestLZ4FrameSkipsIncompressibleData: random blocks are stored as is and,
// after failures, without trying; compressible data that follows is
// compressed again within lz4MaxSkip blocks.
func TestLZ4FrameSkipsIncompressibleData(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 64*lz4BlockSize)
	for i := range random {
		random[i] = byte(rnd.Uint32())
	}
	var f lz4Frame
	blocks := lz4Blocks(t, f.appendFrame(nil, random, 1))
	for i, c := range blocks {
		assert.False(t, c, "random block %d stored as is", i)
	}
	// The attempts back off: 1 + 1 + 2 + 4 + 8 + 16 + 32 blocks.
	assert.Equal(t, lz4MaxSkip, f.workers[0].backoff)

	text := bytes.Repeat([]byte("0123456789 compressible text, again and again\n"), 50*lz4BlockSize/47)
	blocks = lz4Blocks(t, f.appendFrame(nil, text, 1))
	first := -1
	for i, c := range blocks {
		if c {
			first = i
			break
		}
	}
	require.GreaterOrEqual(t, first, 0, "compression resumes")
	assert.LessOrEqual(t, first, lz4MaxSkip)
	for i, c := range blocks[first:] {
		assert.True(t, c, "block %d after the first compressed one", first+i)
	}
}
