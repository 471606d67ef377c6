package cmdutil

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// Slog returns a *slog.Logger that writes to l, the command line's
// logger, so that the library's logs come out as the command line's own
// (same format, same level). The library never logs secrets; nothing here
// adds any.
func Slog(l zerolog.Logger) *slog.Logger { return slog.New(zerologHandler{l: l}) }

// zerologHandler is a slog.Handler over a zerolog.Logger.
type zerologHandler struct {
	l      zerolog.Logger
	group  string      // the prefix of attribute keys, "a.b." for WithGroup("a").WithGroup("b")
	fields []slog.Attr // from WithAttrs, already prefixed
}

// zerologLevel maps a slog level onto zerolog's.
func zerologLevel(l slog.Level) zerolog.Level {
	switch {
	case l < slog.LevelInfo:
		return zerolog.DebugLevel
	case l < slog.LevelWarn:
		return zerolog.InfoLevel
	case l < slog.LevelError:
		return zerolog.WarnLevel
	}
	return zerolog.ErrorLevel
}

// Enabled reports whether l logs at level.
func (h zerologHandler) Enabled(_ context.Context, level slog.Level) bool {
	return zerologLevel(level) >= h.l.GetLevel() && h.l.GetLevel() != zerolog.Disabled
}

// Handle writes one record.
func (h zerologHandler) Handle(_ context.Context, r slog.Record) error {
	ev := h.l.WithLevel(zerologLevel(r.Level))
	if ev == nil {
		return nil
	}
	for _, a := range h.fields {
		ev = addAttr(ev, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		ev = addAttr(ev, h.group, a)
		return true
	})
	ev.Msg(r.Message)
	return nil
}

// WithAttrs returns a handler that adds attrs to every record.
func (h zerologHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	fields := append([]slog.Attr(nil), h.fields...)
	for _, a := range attrs {
		fields = append(fields, slog.Attr{Key: h.group + a.Key, Value: a.Value})
	}
	return zerologHandler{l: h.l, group: h.group, fields: fields}
}

// WithGroup returns a handler that prefixes later keys with name.
func (h zerologHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return zerologHandler{l: h.l, group: h.group + name + ".", fields: h.fields}
}

// addAttr adds one attribute (a group's attributes flattened) to ev.
func addAttr(ev *zerolog.Event, prefix string, a slog.Attr) *zerolog.Event {
	v := a.Value.Resolve()
	key := prefix + a.Key
	switch v.Kind() {
	case slog.KindGroup:
		for _, g := range v.Group() {
			ev = addAttr(ev, key+".", g)
		}
		return ev
	case slog.KindString:
		return ev.Str(key, v.String())
	case slog.KindInt64:
		return ev.Int64(key, v.Int64())
	case slog.KindUint64:
		return ev.Uint64(key, v.Uint64())
	case slog.KindFloat64:
		return ev.Float64(key, v.Float64())
	case slog.KindBool:
		return ev.Bool(key, v.Bool())
	case slog.KindDuration:
		return ev.Dur(key, v.Duration())
	case slog.KindTime:
		return ev.Time(key, v.Time())
	}
	if err, ok := v.Any().(error); ok {
		if key == "err" || key == "error" {
			return ev.Err(err)
		}
		return ev.AnErr(key, err)
	}
	return ev.Interface(key, v.Any())
}
