package network

import (
	"io"
	"net"
	"testing"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// BenchmarkFrameWrite measures the request path below the Client: a
// Produce request of six 170 KiB batches of 100-byte records encoded as a
// frame (the batches kept by reference) and written to a loopback TCP
// socket with one vectored write, as the connection's writer does.
func BenchmarkFrameWrite(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, _ = io.Copy(io.Discard, c)
		}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()

	req, records := benchProduceRequest(6, 170<<10)
	clientID := "bench"
	h := protocol.RequestHeader{APIKey: protocol.KeyProduce, APIVersion: 9, ClientID: &clientID}
	w := protocol.NewWriter(make([]byte, 0, 1024))
	protocol.AppendRequestFrame(w, &h, req)
	b.SetBytes(int64(w.Len()))
	var bufs net.Buffers
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Reset()
		h.CorrelationID = int32(i)
		protocol.AppendRequestFrame(w, &h, req)
		bufs = w.Buffers(bufs[:0])
		if _, err := bufs.WriteTo(nc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*records), "ns/record")
}

// benchProduceRequest builds a Produce request of n uncompressed batches of
// about size bytes of 100-byte records each, and returns its record count.
func benchProduceRequest(n, size int) (*protocol.ProduceRequest, int) {
	value := make([]byte, 100)
	for i := range value {
		value[i] = 'a' + byte(i%26)
	}
	req := &protocol.ProduceRequest{Acks: -1, TimeoutMs: 30000, Topics: []protocol.ProduceRequestTopic{{Name: "t"}}}
	records := 0
	for p := range n {
		batch := make([]byte, protocol.RecordBatchHeaderSize, size+256)
		count := int32(0)
		for len(batch) < size {
			batch = protocol.AppendRecord(batch, count, 0, nil, value, nil)
			count++
		}
		protocol.PutBatchHeader(batch, &protocol.BatchHeader{PartitionLeaderEpoch: -1, LastOffsetDelta: count - 1,
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, RecordCount: count})
		req.Topics[0].Partitions = append(req.Topics[0].Partitions, protocol.ProduceRequestPartition{Index: int32(p), Records: batch})
		records += int(count)
	}
	return req, records
}
