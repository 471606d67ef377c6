package cmdutil

import (
	"io"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
)

// NewLogger returns a logger writing human-readable lines to w at level,
// coloured only when w is a terminal.
func NewLogger(w io.Writer, level zerolog.Level) zerolog.Logger {
	cw := zerolog.ConsoleWriter{Out: w, NoColor: !IsTerminal(w), TimeFormat: time.TimeOnly}
	return zerolog.New(cw).Level(level).With().Timestamp().Logger()
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// IsTerminalReader reports whether r is a terminal.
func IsTerminalReader(r io.Reader) bool {
	f, ok := r.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
