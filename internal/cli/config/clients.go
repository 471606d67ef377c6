package config

import (
	"math/rand/v2"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/sender"
)

// This file is the one place where options become the configurations of
// the clients: what the producer and the admin client get from the
// connection options is mapped once, here.

// ProducerConfig is a producer's configuration with the connection
// options applied and the producer's defaults otherwise. A command that
// produces for its own purpose (check's canaries) starts from it.
func (c *Connection) ProducerConfig() sender.Config {
	cfg := sender.DefaultConfig()
	cfg.Bootstrap = c.Brokers
	cfg.RequestTimeout = c.RequestTimeout
	// 0 is the producer's "up to the delivery timeout" and the admin
	// client's "up to the call's context".
	cfg.Network.BootstrapTimeout = c.BootstrapTimeout
	if c.NoticeOut != nil {
		notify := report.NewNoticesTo(c.NoticeOut).Notify
		cfg.Network.Notify = notify
		if giveUp := c.GiveUpAt; !giveUp.IsZero() {
			cfg.Network.Notify = func(n network.Notice) {
				if !n.Deadline.IsZero() && n.Deadline.After(giveUp) {
					n.Deadline = giveUp
				}
				notify(n)
			}
		}
	}
	cfg.Network.ClientID = c.ClientID
	cfg.Network.SASL = c.Security.SASL
	cfg.Socket.TLS = c.Security.TLSConfig
	cfg.Logger = c.Logger
	return cfg
}

// AdminConfig is the admin client's configuration: the connection options
// over the producer's network defaults.
func (c *Connection) AdminConfig() admin.Config {
	pc := c.ProducerConfig()
	cfg := admin.Config{Bootstrap: pc.Bootstrap, Network: pc.Network, Logger: pc.Logger}
	cfg.Network.RequestTimeout = pc.RequestTimeout
	cfg.Socket = pc.Socket
	return cfg
}

// ProducerConfig maps the produce run's options onto the producer's
// configuration. resultRecords says whether completions must carry each
// record's key and value (a report prints them).
func (o *Options) ProducerConfig(resultRecords bool) (sender.Config, error) {
	cfg := o.Connection.ProducerConfig()
	cfg.Acks = o.Acks
	cfg.Idempotence = o.Idempotence
	if o.Retries >= 0 {
		cfg.Retries = o.Retries
	}
	cfg.MaxRequestSize = o.MaxRequestSize
	cfg.TransactionalID = o.TransactionalID
	cfg.TransactionTimeout = o.TransactionTimeout
	cfg.Network.MaxInFlightPerConnection = o.MaxInFlight
	cfg.Metadata.MaxAge = o.MetadataMaxAge
	cfg.Metadata.AllowAutoTopicCreation = o.AllowAutoTopicCreation
	cfg.Metadata.RefreshBackoff = o.RetryBackoff
	cfg.Accumulator.BatchSize = o.BatchSize
	cfg.Accumulator.Linger = o.Linger
	cfg.Accumulator.RetryBackoff = o.RetryBackoff
	cfg.Accumulator.RetryBackoffMax = max(o.RetryBackoff, cfg.Accumulator.RetryBackoffMax)
	cfg.Accumulator.DeliveryTimeout = o.DeliveryTimeout
	cfg.Accumulator.BufferMemory = o.BufferMemory
	cfg.Accumulator.Codec = o.Compression
	cfg.Accumulator.ResultRecords = resultRecords
	rnd := rand.IntN
	cfg.Rand = rnd
	part, err := accumulator.ParsePartitioner(o.Partitioner, rnd)
	if err != nil {
		return cfg, cmdutil.AsUsageError(err)
	}
	cfg.Partitioner = part
	return cfg, nil
}
