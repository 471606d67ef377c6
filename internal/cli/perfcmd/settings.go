package perfcmd

import (
	"strconv"

	"github.com/kproduce/kproduce/pkg/sender"
)

// Settings are the options that shaped a run, in the JSON summary.
type Settings struct {
	NumRecords            *int64   `json:"num_records"`     // nil: --duration alone
	DurationMs            *int64   `json:"duration_ms"`     // nil: --num-records alone
	Throughput            *float64 `json:"throughput"`      // nil: no limit
	Payload               string   `json:"payload"`         // random, file or monotonic
	RecordSize            int      `json:"record_size"`     // 0 unless random
	PayloadFile           string   `json:"payload_file"`    // "" unless file
	PayloadEntries        int      `json:"payload_entries"` // 0 unless file
	KeySize               int      `json:"key_size"`
	KeyCount              uint64   `json:"key_count"`
	Headers               int      `json:"headers"`
	HeaderSize            int      `json:"header_size"`
	WarmupRecords         int64    `json:"warmup_records"`
	TransactionalID       string   `json:"transactional_id"`
	TransactionDurationMs int64    `json:"transaction_duration_ms"`
	Brokers               []string `json:"brokers"`
	ClientID              string   `json:"client_id"`
	Acks                  string   `json:"acks"`
	Idempotence           bool     `json:"idempotence"`
	Compression           string   `json:"compression"`
	LingerMs              float64  `json:"linger_ms"`
	BatchSize             int      `json:"batch_size"`
	BufferMemory          int64    `json:"buffer_memory"`
	MaxInFlight           int      `json:"max_in_flight"`
	Partitioner           string   `json:"partitioner"`
}

// settingsOf returns the settings of a run of o.
func settingsOf(o *Options) Settings {
	p := o.Producer
	s := Settings{
		KeySize: o.KeySize, KeyCount: o.KeyCount, Headers: o.Headers, HeaderSize: o.HeaderSize,
		WarmupRecords: o.WarmupRecords, TransactionalID: p.TransactionalID,
		TransactionDurationMs: o.TransactionDuration.Milliseconds(),
		Brokers:               p.Brokers, ClientID: p.ClientID, Acks: acksName(p.Acks), Idempotence: p.Idempotence,
		Compression: p.Compression.String(), LingerMs: float64(p.Linger.Microseconds()) / 1e3,
		BatchSize: p.BatchSize, BufferMemory: p.BufferMemory, MaxInFlight: p.MaxInFlight, Partitioner: p.Partitioner,
	}
	if o.NumRecords > 0 {
		s.NumRecords = &o.NumRecords
	}
	if o.Duration > 0 {
		d := o.Duration.Milliseconds()
		s.DurationMs = &d
	}
	if o.Throughput > 0 {
		s.Throughput = &o.Throughput
	}
	switch {
	case o.Payload.Entries != nil:
		s.Payload, s.PayloadFile, s.PayloadEntries = "file", o.Payload.File, len(o.Payload.Entries)
	case o.Payload.Monotonic:
		s.Payload = "monotonic"
	default:
		s.Payload, s.RecordSize = "random", o.Payload.Size
	}
	return s
}

// acksName is acks as Kafka writes it: all, 1 or 0.
func acksName(a sender.Acks) string {
	if a == sender.AllAcks {
		return "all"
	}
	return strconv.Itoa(int(a))
}
