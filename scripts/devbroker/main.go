// Command devbroker runs an in-process Kafka cluster (kfake) for local
// development and manual testing of kproduce:
//
//	go run ./scripts/devbroker -brokers 3 -port 9092 -partitions 6 -topics test,events
//
// It prints "ready host:port,..." on stdout once every broker listens, and
// runs until SIGINT or SIGTERM. Topics that do not exist are created on
// first use with -partitions partitions, unless -auto-create=false: then a
// missing topic is UNKNOWN_TOPIC_OR_PARTITION, as on a broker with
// auto.create.topics.enable=false. Topic names are checked as Kafka checks
// them: a name it rejects ("bad topic!") is INVALID_TOPIC_EXCEPTION and is
// never created. Data is kept in memory only.
//
// Security, to try kproduce's TLS and SASL locally:
//
//	go run ./scripts/devbroker -tls -tls-dir /tmp/kp-tls -sasl SCRAM-SHA-512:alice:s3cret
//
// -tls generates a CA and a certificate for 127.0.0.1 and localhost, and
// listens with TLS; the CA is written to -tls-dir (a new temporary
// directory when empty) and its path printed as "tls-ca PATH" before the
// ready line. -mtls also requires a client certificate signed by that CA
// and writes one ("tls-cert PATH", "tls-key PATH"). -sasl MECH:USER:PASS
// (repeatable; PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512) enables SASL with
// those users.
//
// For benchmarks, -blackhole acknowledges without storing, and
// -wire-stats FILE counts what the Produce requests carried (requests,
// record batches, records, batch bytes as on the wire, per codec) and
// writes it to FILE on exit, so that producers' compressed sizes compare;
// -advertise-produce-v0 lists Produce from v0 in ApiVersions, without which
// librdkafka sends gzip, snappy and lz4 batches uncompressed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "devbroker:", err)
		os.Exit(2)
	}
}

// config is the command line of devbroker.
type config struct {
	brokers    int
	port       int
	partitions int
	topics     []string
	autoCreate bool
	tls        bool
	mtls       bool
	tlsDir     string
	sasl       []saslUser
	blackhole  bool
	wireStats  string
	produceV0  bool
}

// parseFlags parses the command line.
func parseFlags(args []string, errOut io.Writer) (config, error) {
	fs := flag.NewFlagSet("devbroker", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var c config
	var topics string
	fs.IntVar(&c.brokers, "brokers", 1, "number of brokers")
	fs.IntVar(&c.port, "port", 9092, "port of the first broker; the others take the next ports (0: random ports)")
	fs.IntVar(&c.partitions, "partitions", 6, "partitions of the seeded and auto-created topics")
	fs.StringVar(&topics, "topics", "test", "comma-separated topics to create at start")
	fs.BoolVar(&c.autoCreate, "auto-create", true, "create a missing topic when a client asks for it (Kafka's auto.create.topics.enable)")
	fs.BoolVar(&c.tls, "tls", false, "listen with TLS: generate a CA and a server certificate for 127.0.0.1 and localhost, print the CA path")
	fs.BoolVar(&c.mtls, "mtls", false, "require a client certificate (implies -tls); generate one signed by the CA")
	fs.StringVar(&c.tlsDir, "tls-dir", "", "directory for the generated CA and client certificate (default: a new temporary directory)")
	fs.BoolVar(&c.blackhole, "blackhole", false, "acknowledge produce requests without storing the records (for benchmarks: memory stays flat)")
	fs.StringVar(&c.wireStats, "wire-stats", "", "count the Produce requests, record batches, records and batch bytes received (per codec) and write them to `FILE` on exit")
	fs.BoolVar(&c.produceV0, "advertise-produce-v0", false, "list Produce from v0 in ApiVersions, as brokers before Kafka 4.0 did (librdkafka compresses gzip, snappy and lz4 only then); older versions are still refused")
	fs.Func("sasl", "enable SASL with the user `MECH:USER:PASS` (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; repeatable)", func(v string) error {
		u, err := parseSASLUser(v)
		if err == nil {
			c.sasl = append(c.sasl, u)
		}
		return err
	})
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.brokers < 1 || c.brokers > 64 {
		return c, fmt.Errorf("-brokers %d: want 1 to 64", c.brokers)
	}
	if c.port < 0 || c.port+c.brokers-1 > 65535 {
		return c, fmt.Errorf("-port %d: the ports of %d brokers must fit in 1-65535", c.port, c.brokers)
	}
	if c.partitions < 1 {
		return c, fmt.Errorf("-partitions %d: want at least 1", c.partitions)
	}
	c.tls = c.tls || c.mtls
	if c.tlsDir != "" && !c.tls {
		return c, fmt.Errorf("-tls-dir needs -tls")
	}
	for _, t := range strings.Split(topics, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if err := validateTopicName(t); err != nil {
			return c, fmt.Errorf("-topics: %w", err)
		}
		c.topics = append(c.topics, t)
	}
	return c, nil
}

// run starts the cluster, prints its addresses and waits for ctx to end.
func run(ctx context.Context, args []string, out, errOut io.Writer) error {
	c, err := parseFlags(args, errOut)
	if err != nil {
		return err
	}
	ports := make([]int, c.brokers)
	for i := range ports {
		if c.port != 0 {
			ports[i] = c.port + i
		}
	}
	opts := []kfake.Opt{
		kfake.Ports(ports...),
		kfake.DefaultNumPartitions(c.partitions),
	}
	if c.autoCreate {
		opts = append(opts, kfake.AllowAutoTopicCreation())
	}
	if c.blackhole {
		opts = append(opts, kfake.BlackholeProduce())
	}
	if len(c.topics) > 0 {
		opts = append(opts, kfake.SeedTopics(int32(c.partitions), c.topics...))
	}
	security, err := securityOpts(c, out, time.Now())
	if err != nil {
		return err
	}
	cluster, err := kfake.NewCluster(append(opts, security...)...)
	if err != nil {
		return fmt.Errorf("start cluster: %w", err)
	}
	defer cluster.Close()
	guardTopicNames(cluster)
	if c.produceV0 {
		if err := advertiseProduceV0(ctx, cluster, cluster.ListenAddrs()[0]); err != nil {
			return err
		}
	}
	var stats *wireStats
	if c.wireStats != "" {
		stats = countProduceRequests(cluster)
	}
	if _, err := fmt.Fprintf(out, "ready %s\n", strings.Join(cluster.ListenAddrs(), ",")); err != nil {
		return err
	}
	<-ctx.Done()
	if stats != nil {
		return stats.writeFile(c.wireStats)
	}
	return nil
}
