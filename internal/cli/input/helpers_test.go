package input

import (
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/escape"
	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// gotRecord is a copy of an Record that outlives the next Next call.
type gotRecord struct {
	Number    int64
	Topic     string
	Partition int32
	Key       []byte
	Value     []byte
	Headers   []protocol.Header
	Timestamp int64 // ms; 0: none given
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
func copyRecord(rec *Record) gotRecord {
	g := gotRecord{Number: rec.Number, Topic: rec.Topic, Partition: rec.Partition,
		Key: clone(rec.Key), Value: clone(rec.Value), Err: rec.Err}
	if !rec.Timestamp.IsZero() {
		g.Timestamp = rec.Timestamp.UnixMilli()
	}
	for _, h := range rec.Headers {
		g.Headers = append(g.Headers, protocol.Header{Key: h.Key, Value: clone(h.Value)})
	}
	return g
}

// readAll reads every record of rr, failing the test on a read error.
func readAll(t testing.TB, rr Reader) []gotRecord {
	t.Helper()
	var out []gotRecord
	for {
		var rec Record
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

// testConfig is the input configuration of a command line's input flags
// (-f, -D, -K, -k, -H, --null, --skip-empty, --max-record-bytes; -t is
// ignored), over kproduce's defaults, so that the tests read like the
// command lines they stand for.
func testConfig(t testing.TB, args ...string) *Config {
	t.Helper()
	cfg := &Config{Format: FormatLines, Delimiter: []byte("\n"), MaxRecordBytes: 1 << 20,
		HeaderSeparator: []byte(","), HeaderKeySeparator: []byte(":"), Partition: sender.AnyPartition}
	unescape := func(s string) []byte {
		b, err := escape.Unescape(s)
		require.NoError(t, err)
		return b
	}
	for i := 0; i < len(args); i++ {
		flag := args[i]
		switch flag {
		case "--skip-empty":
			cfg.SkipEmpty = true
			continue
		case "--require-delimiters":
			cfg.RequireDelimiters = true
			continue
		case "-Z":
			cfg.EmptyAsNull = true
			continue
		}
		require.Less(t, i+1, len(args), "%s needs a value", flag)
		i++
		v := args[i]
		switch flag {
		case "-t":
		case "-f":
			cfg.Format = v
			if strings.Contains(v, "%") {
				l, err := ParseLayout(v)
				require.NoError(t, err, v)
				cfg.Format, cfg.Layout = FormatLayout, l
			}
		case "--header-delimiter":
			cfg.HeaderDelimiter = unescape(v)
		case "--header-separator":
			cfg.HeaderSeparator = unescape(v)
		case "--header-key-separator":
			cfg.HeaderKeySeparator = unescape(v)
		case "-D":
			cfg.Delimiter = unescape(v)
		case "-K":
			cfg.KeyDelimiter = unescape(v)
		case "-k":
			cfg.Key = []byte(v)
		case "-H":
			k, val, ok := strings.Cut(v, "=")
			require.True(t, ok, "-H %s", v)
			cfg.Headers = append(cfg.Headers, protocol.Header{Key: k, Value: []byte(val)})
		case "--null":
			cfg.NullEnabled, cfg.NullMarker = true, []byte(v)
		case "--max-record-bytes":
			n, err := strconv.ParseInt(strings.TrimSuffix(v, "KiB"), 10, 64)
			require.NoError(t, err)
			if strings.HasSuffix(v, "KiB") {
				n <<= 10
			}
			cfg.MaxRecordBytes = n
		default:
			t.Fatalf("testConfig: unknown flag %s", flag)
		}
	}
	return cfg
}
