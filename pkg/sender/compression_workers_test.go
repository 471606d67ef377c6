package sender

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// compressedBy compresses with codec on workers goroutines, in batches of
// n test records.
func compressedBy(codec protocol.Codec, workers, n int) func(*config) {
	return func(c *config) {
		c.Accumulator.Codec = codec
		c.Accumulator.CompressionWorkers = workers
		size := protocol.RecordBatchHeaderSize + n*recordBytes
		c.Accumulator.BatchSize = size + protocol.CompressionOverhead(codec, size)
	}
}

// stepUntilCompressedProduce steps until n Produce requests were sent,
// waiting between steps for the accumulator's signal (a compression worker
// finished a batch) when nothing was sent, up to a deadline.
func (f *fixture) stepUntilCompressedProduce(n int) []networktest.SentRequest {
	f.t.Helper()
	var out []networktest.SentRequest
	deadline := time.After(10 * time.Second)
	for len(out) < n {
		f.step()
		if sent := f.newProduce(); len(sent) > 0 {
			out = append(out, sent...)
			continue
		}
		select {
		case <-f.p.acc.Wakeup():
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			f.t.Fatalf("%d of %d produce requests sent", len(out), n)
		}
	}
	require.Len(f.t, out, n, "produce requests sent")
	return out
}

// TestCompressionWorkersKeepSequences: with batches compressed on two
// workers, an idempotent producer sends a partition's batches in order
// with consecutive sequences, and a batch retried after REQUEST_TIMED_OUT
// goes again byte for byte (same compressed records, sequence and
// checksum), so the broker can recognise it.
func TestCompressionWorkersKeepSequences(t *testing.T) {
	for _, codec := range []protocol.Codec{protocol.CodecGzip, protocol.CodecSnappy, protocol.CodecLz4, protocol.CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: compressedBy(codec, 2, 4)})
			f.send("t", 0)
			f.advance(testLinger)
			f.respondAll(f.stepUntilCompressedProduce(1)[0], success) // pipelining from now on
			positions := f.sendN("t", 0, 16)
			f.advance(testLinger)
			reqs := f.stepUntilCompressedProduce(4)
			for i, r := range reqs {
				b := f.batchFor(r, "t", 0)
				assert.Equal(t, codec, protocol.Codec(b.batch.Attributes&protocol.AttrCompressionMask))
				assert.Equal(t, int32(1+4*i), b.batch.FirstSequence, "batch %d", i)
				assert.Equal(t, values(positions[4*i:4*i+4]...), b.values, "batch %d", i)
			}
			f.respondAll(reqs[0], errAnswer(protocol.ErrRequestTimedOut))
			f.step()
			f.advance(testRetryBackoff)
			retry := f.stepUntilCompressedProduce(1)[0]
			assert.Equal(t, reqs[0].Body.(*protocol.ProduceRequest).Topics[0].Partitions[0].Records,
				retry.Body.(*protocol.ProduceRequest).Topics[0].Partitions[0].Records, "the same bytes")
			// A connection's answers come in the order of its requests.
			for _, r := range append(reqs[1:], retry) {
				f.respondAll(r, success)
			}
			f.step()
			f.requireExactlyOnce()
		})
	}
}

// TestCompressionWorkersOption: the option is checked, and 0 compresses
// as requests are built.
func TestCompressionWorkersOption(t *testing.T) {
	_, err := New(SeedBrokers("127.0.0.1:1"), Compression(protocol.CodecZstd), CompressionWorkers(-1))
	require.ErrorIs(t, err, ErrConfig)
	for _, workers := range []int{0, 3} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: configs(nonIdempotent, compressedBy(protocol.CodecLz4, workers, 4))})
			positions := f.sendN("t", 0, 8)
			f.advance(testLinger)
			reqs := f.stepUntilCompressedProduce(2)
			for i, r := range reqs {
				assert.Equal(t, values(positions[4*i:4*i+4]...), f.batchFor(r, "t", 0).values)
				f.respondAll(r, success)
			}
			f.step()
			f.requireExactlyOnce()
		})
	}
}

// TestCompressionLevelOption: a level the codec does not take is a
// configuration error naming the levels it takes.
func TestCompressionLevelOption(t *testing.T) {
	_, err := New(SeedBrokers("127.0.0.1:1"), Compression(protocol.CodecGzip), CompressionLevel(12))
	require.ErrorIs(t, err, ErrConfig)
	require.ErrorIs(t, err, protocol.ErrCompressionLevel)
	assert.Contains(t, err.Error(), "gzip: it takes 1 to 9")
	p, err := New(SeedBrokers("127.0.0.1:1"), Compression(protocol.CodecZstd), CompressionLevel(19))
	require.NoError(t, err)
	require.NoError(t, p.Close(t.Context()))
}
