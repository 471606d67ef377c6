package main

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// parseOptions resolves options from a command line the way the command
// does, returning what was logged on stderr.
func parseOptions(t testing.TB, args ...string) (*Options, string, error) {
	t.Helper()
	fs := pflag.NewFlagSet("kproduce", pflag.ContinueOnError)
	addFlags(fs)
	require.NoError(t, fs.Parse(args))
	var stderr bytes.Buffer
	opts, err := loadOptions(fs, fs.Args(), &stderr)
	return opts, stderr.String(), err
}

// mustOptions is parseOptions that requires success.
func mustOptions(t testing.TB, args ...string) *Options {
	t.Helper()
	opts, _, err := parseOptions(t, args...)
	require.NoError(t, err)
	return opts
}

// gotRecord is a copy of an inputRecord that outlives the next Next call.
type gotRecord struct {
	Number    int64
	Topic     string
	Partition int32
	Key       []byte
	Value     []byte
	Headers   []protocol.Header
	Timestamp int64
	Err       error
}

// clone copies b, keeping nil as nil.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// copyRecord copies rec.
func copyRecord(rec *inputRecord) gotRecord {
	g := gotRecord{Number: rec.Number, Topic: rec.Topic, Partition: rec.Partition,
		Key: clone(rec.Key), Value: clone(rec.Value), Timestamp: rec.Timestamp, Err: rec.Err}
	for _, h := range rec.Headers {
		g.Headers = append(g.Headers, protocol.Header{Key: h.Key, Value: clone(h.Value)})
	}
	return g
}

// readAll reads every record of rr, failing the test on a read error.
func readAll(t testing.TB, rr recordReader) []gotRecord {
	t.Helper()
	var out []gotRecord
	for {
		var rec inputRecord
		err := rr.Next(&rec)
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, copyRecord(&rec))
	}
}

// values returns the values of records as strings ("<nil>" for null,
// "<err>" for a failed record).
func values(recs []gotRecord) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		switch {
		case r.Err != nil:
			out = append(out, "<err>")
		case r.Value == nil:
			out = append(out, "<nil>")
		default:
			out = append(out, string(r.Value))
		}
	}
	return out
}

// numbers returns the record numbers of records.
func numbers(recs []gotRecord) []int64 {
	out := make([]int64, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Number)
	}
	return out
}

// newTestRand returns a deterministic random source.
func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(7, 11)) }
