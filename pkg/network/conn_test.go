package network

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadPayload(t *testing.T) {
	want := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB: several chunks
	got, err := readPayload(bytes.NewReader(want), len(want))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	got, err = readPayload(bytes.NewReader(nil), 0)
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestReadPayloadLyingSizeCostsLittleMemory(t *testing.T) {
	var before, after runtime.MemStats
	// A peer announces 100 MiB and sends 1.5 MiB.
	sent := make([]byte, 3<<19)
	runtime.ReadMemStats(&before)
	_, err := readPayload(bytes.NewReader(sent), 100<<20)
	runtime.ReadMemStats(&after)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "allocation follows the bytes received")
}
