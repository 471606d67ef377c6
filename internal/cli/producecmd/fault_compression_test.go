package producecmd_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// compressionWorkers is the --compression-workers of the compression
// scenarios: more than the cores of a small machine, so that batches of a
// partition are compressed at the same time and finish in any order.
const compressionWorkers = "4"

// compressedBatches counts, per codec, the record batches the cluster
// receives (in Produce requests it reads), and at the end of the test
// checks that every one was compressed with codec.
func compressedBatches(t *testing.T, fc *faultCluster, codec protocol.Codec) {
	var mu sync.Mutex
	counts := map[protocol.Codec]int{}
	fc.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		fc.KeepControl()
		pr, ok := req.(*kmsg.ProduceRequest)
		if !ok {
			return nil, nil, false
		}
		mu.Lock()
		defer mu.Unlock()
		for _, tp := range pr.Topics {
			for _, p := range tp.Partitions {
				var b kmsg.RecordBatch
				if err := b.ReadFrom(p.Records); err == nil {
					counts[protocol.Codec(b.Attributes&protocol.AttrCompressionMask)]++
				}
			}
		}
		return nil, nil, false
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		assert.Positive(t, counts[codec], "batches compressed with %s", codec)
		assert.Len(t, counts, 1, "every batch compressed with %s: %v", codec, counts)
	})
}

// compressionScenarios are faults that store a batch and lose its answer
// (REQUEST_TIMED_OUT, a connection closed after the append) or lose the
// request (a connection closed before the broker reads it), with each
// codec and batches compressed on several workers. Each batch is
// compressed once, before its sequence number and checksum are set, and
// retried with the same bytes: with idempotence every record must be
// stored exactly once, in input order per partition.
func compressionScenarios() []faultScenario {
	var out []faultScenario
	for _, codec := range []protocol.Codec{protocol.CodecGzip, protocol.CodecSnappy, protocol.CodecLz4, protocol.CodecZstd} {
		args := []string{"-z", codec.String(), "--compression-workers", compressionWorkers}
		with := func(fault func(*testing.T, *faultCluster)) func(*testing.T, *faultCluster) {
			return func(t *testing.T, fc *faultCluster) {
				compressedBatches(t, fc, codec)
				if fault != nil {
					fault(t, fc)
				}
			}
		}
		out = append(out,
			faultScenario{name: codec.String() + "/REQUEST_TIMED_OUT", setup: with(produceErrors(kerr.RequestTimedOut, 6)), args: args},
			faultScenario{name: codec.String() + "/connection closed after append", setup: with(nil), hooks: loseResponses(3), args: args},
			faultScenario{name: codec.String() + "/connection closed before produce", setup: with(dropConnections(3)), args: args},
		)
	}
	return out
}

// TestFaultCompression runs the compression scenarios with idempotence:
// every record delivered exactly once, in order, whatever order its
// batches were compressed in.
func TestFaultCompression(t *testing.T) {
	t.Parallel()
	runScenarioTable(t, compressionScenarios(), false)
}
