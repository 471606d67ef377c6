package main

import (
	"io"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
)

// newLogger returns a logger writing human-readable lines to w at level,
// coloured only when w is a terminal.
func newLogger(w io.Writer, level zerolog.Level) zerolog.Logger {
	cw := zerolog.ConsoleWriter{Out: w, NoColor: !isTerminal(w), TimeFormat: time.TimeOnly}
	return zerolog.New(cw).Level(level).With().Timestamp().Logger()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// logOptions logs the effective options at debug level, secrets redacted.
func logOptions(o *Options) {
	l := o.Logger.Debug()
	if !l.Enabled() {
		return
	}
	l.Strs("brokers", o.Brokers).
		Str("topic", o.Topic).
		Int32("partition", o.Partition).
		Str("partitioner", o.Partitioner).
		Str("format", o.Format).
		Int16("acks", o.Acks).
		Bool("idempotence", o.Idempotence).
		Dur("linger", o.Linger).
		Int("batch_size", o.BatchSize).
		Int64("buffer_memory", o.BufferMemory).
		Int("max_request_size", o.MaxRequestSize).
		Stringer("compression", o.Compression).
		Int("max_in_flight", o.MaxInFlight).
		Dur("request_timeout", o.RequestTimeout).
		Dur("delivery_timeout", o.DeliveryTimeout).
		Str("client_id", o.ClientID).
		Interface("java_security", redactSecurity(o.JavaSecurity)).
		Msg("options")
}
