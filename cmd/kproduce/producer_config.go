package main

import (
	"math/rand/v2"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/sender"
)

// producerConfig maps the command's options onto the producer's.
func producerConfig(opts *Options, resultRecords bool) (sender.Config, error) {
	cfg := sender.DefaultConfig()
	cfg.Bootstrap = opts.Brokers
	cfg.Acks = opts.Acks
	cfg.Idempotence = opts.Idempotence
	cfg.MaxRequestSize = opts.MaxRequestSize
	cfg.RequestTimeout = opts.RequestTimeout
	cfg.Network.ClientID = opts.ClientID
	cfg.TransactionalID = opts.TransactionalID
	cfg.TransactionTimeout = opts.TransactionTimeout
	cfg.Network.MaxInFlightPerConnection = opts.MaxInFlight
	cfg.Network.SASL = opts.Security.SASL
	cfg.Socket.TLS = opts.Security.TLSConfig
	cfg.Metadata.MaxAge = opts.MetadataMaxAge
	cfg.Metadata.RefreshBackoff = opts.RetryBackoff
	cfg.Accumulator.BatchSize = opts.BatchSize
	cfg.Accumulator.Linger = opts.Linger
	cfg.Accumulator.RetryBackoff = opts.RetryBackoff
	cfg.Accumulator.RetryBackoffMax = max(opts.RetryBackoff, cfg.Accumulator.RetryBackoffMax)
	cfg.Accumulator.DeliveryTimeout = opts.DeliveryTimeout
	cfg.Accumulator.BufferMemory = opts.BufferMemory
	cfg.Accumulator.Codec = opts.Compression
	cfg.Accumulator.ResultRecords = resultRecords
	cfg.Logger = opts.Logger
	rnd := rand.IntN
	cfg.Rand = rnd
	part, err := accumulator.ParsePartitioner(opts.Partitioner, rnd)
	if err != nil {
		return cfg, asUsageError(err)
	}
	cfg.Partitioner = part
	return cfg, nil
}
