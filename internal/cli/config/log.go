package config

import (
	"strings"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
)

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
		Str("format", o.Input.Format).
		Int16("acks", int16(o.Acks)).
		Bool("idempotence", o.Idempotence).
		Dur("linger", o.Linger).
		Int("batch_size", o.BatchSize).
		Int64("buffer_memory", o.BufferMemory).
		Int("max_request_size", o.MaxRequestSize).
		Stringer("compression", o.Compression).
		Int("max_in_flight", o.MaxInFlight).
		Dur("request_timeout", o.RequestTimeout).
		Dur("delivery_timeout", o.DeliveryTimeout).
		Dur("bootstrap_timeout", o.BootstrapTimeout).
		Str("client_id", o.ClientID).
		Interface("java_security", javaprops.Redact(o.JavaSecurity)).
		Str("schema_registry", javaprops.RedactURLs(strings.Join(o.Schemas.Registry.URLs, ","))).
		Msg("options")
}
