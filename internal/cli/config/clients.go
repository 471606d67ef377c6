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

// softwareName is what kproduce calls itself to brokers that ask (KIP-511).
const softwareName, softwareVersion = "kproduce", "dev"

// ProducerOptions are a producer's options for the connection: the
// brokers, TLS and SASL, timeouts, the logger and the notices. A command
// that produces for its own purpose (check's canaries) starts from them.
func (c *Connection) ProducerOptions() []sender.Opt {
	opts := []sender.Opt{
		sender.SeedBrokers(c.Brokers...),
		sender.ClientID(c.ClientID),
		sender.SoftwareNameAndVersion(softwareName, softwareVersion),
		sender.RequestTimeout(c.RequestTimeout),
		// 0 is the producer's "up to the delivery timeout".
		sender.BootstrapTimeout(c.BootstrapTimeout),
		sender.WithLogger(cmdutil.Slog(c.Logger)),
	}
	if c.Security.SASL != nil {
		opts = append(opts, sender.SASL(c.Security.SASL))
	}
	if c.Security.TLSConfig != nil {
		opts = append(opts, sender.DialTLS(c.Security.TLSConfig))
	}
	if c.NoticeOut != nil {
		opts = append(opts, sender.OnNotice(c.notify()))
	}
	return opts
}

// AdminConfig is the admin client's configuration for the connection.
func (c *Connection) AdminConfig() admin.Config {
	cfg := admin.Config{
		Brokers:  c.Brokers,
		ClientID: c.ClientID, SoftwareName: softwareName, SoftwareVersion: softwareVersion,
		TLS: c.Security.TLSConfig, SASL: c.Security.SASL,
		// 0 is the admin client's "up to the call's context".
		RequestTimeout: c.RequestTimeout, BootstrapTimeout: c.BootstrapTimeout,
		Logger: cmdutil.Slog(c.Logger),
	}
	if c.NoticeOut != nil {
		cfg.OnNotice = c.notify()
	}
	return cfg
}

// notify prints the connection notices on NoticeOut, each bootstrap
// failure's deadline no later than when the command gives up (GiveUpAt).
func (c *Connection) notify() func(network.Notice) {
	notify := report.NewNoticesTo(c.NoticeOut).Notify
	giveUp := c.GiveUpAt
	if giveUp.IsZero() {
		return notify
	}
	return func(n network.Notice) {
		if !n.Deadline.IsZero() && n.Deadline.After(giveUp) {
			n.Deadline = giveUp
		}
		notify(n)
	}
}

// ProducerOptions maps the produce run's options onto the producer's.
// promiseRecordBytes says whether promises must carry each record's key,
// value and headers (a report prints them). Records name their partition
// (-p, a JSON record's own) or AnyPartition for the partitioner.
func (o *Options) ProducerOptions(promiseRecordBytes bool) ([]sender.Opt, error) {
	part, err := sender.NewPartitioner(o.Partitioner, rand.IntN)
	if err != nil {
		return nil, cmdutil.AsUsageError(err)
	}
	opts := append(o.Connection.ProducerOptions(),
		sender.RequiredAcks(o.Acks),
		sender.Idempotence(o.Idempotence), // as the rules between the options left it
		sender.MaxRequestSize(o.MaxRequestSize),
		sender.MaxInFlight(o.MaxInFlight),
		sender.MetadataMaxAge(o.MetadataMaxAge),
		sender.AllowAutoTopicCreation(o.AllowAutoTopicCreation),
		sender.RetryBackoff(o.RetryBackoff, max(o.RetryBackoff, accumulator.DefaultRetryBackoffMax)),
		sender.BatchSize(o.BatchSize),
		sender.Linger(o.Linger),
		sender.DeliveryTimeout(o.DeliveryTimeout),
		sender.BufferMemory(o.BufferMemory),
		sender.Compression(o.Compression),
		sender.CompressionLevel(o.CompressionLevel),
		sender.CompressionWorkers(o.CompressionWorkers),
		sender.WithPartitioner(sender.ManualPartitioner(part)),
	)
	if o.Retries >= 0 {
		opts = append(opts, sender.Retries(o.Retries))
	}
	if o.TransactionalID != "" {
		opts = append(opts, sender.TransactionalID(o.TransactionalID), sender.TransactionTimeout(o.TransactionTimeout))
	}
	if promiseRecordBytes {
		opts = append(opts, sender.PromiseRecordBytes())
	}
	if o.DryRun {
		opts = append(opts, sender.DryRun(o.DryRunPartitions))
	}
	return opts, nil
}
