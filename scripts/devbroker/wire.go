package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// wireStats counts what Produce requests carry, as they arrive: requests,
// record batches, records and the batches' bytes (headers included, as on
// the wire), per codec. Benchmarks compare producers' compressed sizes
// with it; it reads only the batch headers.
type wireStats struct {
	mu       sync.Mutex
	requests int64
	batches  [8]int64 // by codec id
	records  [8]int64
	bytes    [8]int64
}

// countProduceRequests installs the counter on cluster; it observes every
// Produce request and lets the cluster answer it.
func countProduceRequests(cluster *kfake.Cluster) *wireStats {
	s := &wireStats{}
	cluster.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if p, ok := req.(*kmsg.ProduceRequest); ok {
			s.add(p)
		}
		return nil, nil, false
	})
	return s
}

// add counts the batches of one request.
func (s *wireStats) add(req *kmsg.ProduceRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			s.addBatches(p.Records)
		}
	}
}

// addBatches walks the record batches (v2) back to back in b.
func (s *wireStats) addBatches(b []byte) {
	const headerSize = 61
	for len(b) >= headerSize {
		n := int(int32(binary.BigEndian.Uint32(b[8:]))) + 12
		if n < headerSize || n > len(b) {
			return
		}
		codec := binary.BigEndian.Uint16(b[21:]) & 7
		s.batches[codec]++
		s.records[codec] += int64(int32(binary.BigEndian.Uint32(b[57:])))
		s.bytes[codec] += int64(n)
		b = b[n:]
	}
}

// codecNames are the codec ids' names.
var codecNames = [8]string{"none", "gzip", "snappy", "lz4", "zstd", "codec5", "codec6", "codec7"}

// String is the counts, one line: the totals, then per codec used.
func (s *wireStats) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var batches, records, bytes int64
	per := ""
	for c := range s.batches {
		batches += s.batches[c]
		records += s.records[c]
		bytes += s.bytes[c]
		if s.batches[c] > 0 {
			per += fmt.Sprintf(" %s=%d/%d/%d", codecNames[c], s.batches[c], s.records[c], s.bytes[c])
		}
	}
	return fmt.Sprintf("requests %d batches %d records %d bytes %d (per codec batches/records/bytes:%s)\n",
		s.requests, batches, records, bytes, per)
}

// writeFile writes the counts to path.
func (s *wireStats) writeFile(path string) error {
	return os.WriteFile(path, []byte(s.String()), 0o644)
}
