package cmdutil

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
)

// TestSlogWritesThroughZerolog: the library's slog records come out of
// the command line's zerolog logger, at its level, with their attributes.
func TestSlogWritesThroughZerolog(t *testing.T) {
	var buf bytes.Buffer
	l := Slog(zerolog.New(&buf).Level(zerolog.InfoLevel))
	l.Debug("hidden", "x", 1)
	assert.Empty(t, buf.String(), "below the level")
	assert.False(t, l.Enabled(t.Context(), slog.LevelDebug))
	l.With("node", 3).WithGroup("g").Info("connected", "backoff", time.Second, "err", errors.New("boom"), "ok", true)
	assert.JSONEq(t, `{"level":"info","node":3,"g.backoff":1000,"g.err":"boom","g.ok":true,"message":"connected"}`, buf.String())
	buf.Reset()
	l.Info("e", "err", errors.New("reset"))
	assert.JSONEq(t, `{"level":"info","error":"reset","message":"e"}`, buf.String())
	buf.Reset()
	Slog(zerolog.New(&buf).Level(zerolog.Disabled)).Error("never")
	assert.Empty(t, buf.String())
}
