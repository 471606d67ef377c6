package checkcmd

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Options are a check's resolved options.
type Options struct {
	Connection *config.Connection
	Output     string        // text or json
	Timeout    time.Duration // bounds the metadata wait, then each canary
	Count      int64         // canaries per partition
	Create     bool          // create a missing topic
	Spec       admin.TopicSpec
}

// NewCommand returns kproduce check: a smoke test that produces canary
// records to every partition of a topic. Running it resolves the options
// and hands them to runF, or, when runF is nil, checks and returns an
// error that gives the exit status.
func NewCommand(s cmdutil.Streams, runF func(context.Context, *Options) error) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, opts *Options) error { return cmdutil.Exit(runCheck(ctx, opts, s)) }
	}
	cmd := cmdutil.NewSubcommand("check -t TOPIC [flags]",
		"Smoke-test a cluster: produce canaries to every partition of a topic",
		`kproduce check fetches the topic's metadata and produces --count canary
records to each of its partitions (acks=all), each with the header
kproduce-canary (the run id) and the value "kproduce check TIME canary N".
Each canary is then read back from its partition's leader (Fetch at its
offset) and checked: a check proves that data can be read, not just
written. It prints, per partition, its leader, the offset of its last
canary, its latency (its slowest canary's, from send to acknowledgement)
and its read latency (from send to being read back: produce to consume),
then the partitions ok and failed and the latencies of all canaries (min,
median, p99, max).

--timeout bounds the wait for the metadata (and the topic's creation), and
then each canary's delivery. With --create, a missing topic is created
first (CreateTopics to the controller; --partitions and
--replication-factor default to the broker's defaults).

Exit status: 0 only when every partition accepted its canaries and gave
them back within --timeout; 1 otherwise (each failing partition is named,
with its reason: no leader, not reachable, the Kafka error, or not read
back), or when the cluster cannot be reached or the topic does not exist;
2 bad usage.`,
		`  kproduce check -b kafka:9092 -t smoke
  kproduce check -b kafka:9092 -t smoke --count 3 -o json --timeout 30s
  kproduce check -b kafka:9092 -t smoke --create --partitions 6 --replication-factor 3`)
	fs := cmd.Flags()
	fs.StringP("topic", "t", "", "`topic` to check (required)")
	fs.String("count", "1", "send `N` canary records to each partition")
	fs.String("timeout", cmdutil.DefaultSubcommandTimeout.String(), "give up after `duration` (metadata, then each canary)")
	fs.StringP("output", "o", "text", "output `format`: text | json")
	fs.Bool("create", false, "create the topic when it does not exist")
	fs.String("partitions", "-1", "a created topic gets `N` partitions (-1: the broker's default)")
	fs.String("replication-factor", "-1", "a created topic gets `N` replicas of each partition (-1: the broker's default)")
	config.AddSubcommandFlags(cmd)
	cmd.SetFlagErrorFunc(jsonFlagError(s))
	cmd.RunE = jsonOnError(s, func(cmd *cobra.Command, _ []string) error {
		conn, err := config.LoadConnection(cmd.Flags(), s.Err)
		if err != nil {
			return err
		}
		opts, err := readOptions(cmd, conn)
		if err != nil {
			return err
		}
		conn.BoundBootstrap(opts.Timeout, time.Now())
		return runF(cmd.Context(), opts)
	})
	return cmd
}

// readOptions reads and validates check's own options.
func readOptions(cmd *cobra.Command, conn *config.Connection) (*Options, error) {
	r := config.NewFlagReader(cmd.Flags())
	f := &Options{
		Connection: conn,
		Output:     r.Output(),
		Timeout:    r.Duration("timeout", true),
		Count:      r.Integer("count", 1, 1_000_000),
		Create:     r.Bool("create"),
		Spec: admin.TopicSpec{
			Partitions:        int32(r.Integer("partitions", -1, math.MaxInt32)),
			ReplicationFactor: int16(r.Integer("replication-factor", -1, math.MaxInt16)),
		},
	}
	if f.Spec.Partitions == 0 {
		r.FailValue("partitions", "0", fmt.Errorf("%w: want -1 or at least 1", config.ErrBadValue))
	}
	if f.Spec.ReplicationFactor == 0 {
		r.FailValue("replication-factor", "0", fmt.Errorf("%w: want -1 or at least 1", config.ErrBadValue))
	}
	if conn.Topic == "" {
		r.Fail("topic", fmt.Errorf("%w: a topic is required (-t TOPIC)", config.ErrBadValue))
	}
	return f, r.Err()
}

// runCheck runs the check and returns the exit status.
func runCheck(parent context.Context, f *Options, s cmdutil.Streams) int {
	opts := f.Connection
	client, err := admin.New(opts.AdminConfig())
	if err != nil {
		failCheck(parent, cmdutil.Streams{Out: s.Out, Err: io.Discard}, f, opts.Topic, err)
		cmdutil.PrintError(s.Err, cmdutil.AsUsageError(err))
		return cmdutil.ExitUsage
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(parent, f.Timeout)
	defer cancel()
	topic, created, err := ensureTopic(ctx, client, opts.Topic, f)
	if err != nil {
		return failCheck(parent, s, f, opts.Topic, err)
	}
	rep := &checkReport{Topic: opts.Topic, Created: created, Canaries: f.Count, RunID: newRunID()}
	slices.SortFunc(topic.Partitions, func(a, b protocol.MetadataResponsePartition) int {
		return cmp.Compare(a.PartitionIndex, b.PartitionIndex)
	})
	var partitions []int32
	for _, p := range topic.Partitions {
		if p.LeaderID >= 0 && p.ErrorCode == 0 {
			partitions = append(partitions, p.PartitionIndex)
		}
	}
	run := newCanaryRun(opts.Topic, rep.RunID, partitions, f.Count)
	if len(partitions) > 0 {
		// The canaries have what is left of --timeout: the whole check is
		// bounded by it.
		deadline, _ := ctx.Deadline()
		left := max(time.Until(deadline), time.Millisecond)
		// The canaries are read back (through the admin client's
		// connections) as they are acknowledged.
		rb := startReadBack(ctx, client, run)
		err := run.produce(parent, canaryProducerOptions(opts, left), left)
		rb.wait()
		if err != nil {
			return failCheck(parent, s, f, opts.Topic, err)
		}
	}
	var latencies, readLatencies []time.Duration
	for _, p := range topic.Partitions {
		if p.LeaderID < 0 || p.ErrorCode != 0 {
			rep.Partitions = append(rep.Partitions, noLeaderResult(p))
			continue
		}
		res, lat, readLat := run.result(p.PartitionIndex, p.LeaderID, true)
		rep.Partitions = append(rep.Partitions, res)
		latencies, readLatencies = append(latencies, lat...), append(readLatencies, readLat...)
	}
	rep.summarize(latencies, readLatencies)
	return finishCheck(parent, rep, f.Output, s)
}

// ensureTopic returns the topic's metadata, creating the topic first when
// it does not exist and --create is given.
func ensureTopic(ctx context.Context, client *admin.Client, name string, f *Options) (*protocol.MetadataResponseTopic, bool, error) {
	var spec *admin.TopicSpec
	if f.Create {
		spec = &f.Spec
	}
	t, created, err := client.EnsureTopic(ctx, name, spec)
	if err != nil && !f.Create && errors.Is(err, protocol.ErrUnknownTopicOrPartition) {
		err = fmt.Errorf("%w; run with --create to create it", err)
	}
	return t, created, err
}

// finishCheck prints the report and returns the exit status.
func finishCheck(parent context.Context, rep *checkReport, output string, s cmdutil.Streams) int {
	var err error
	if output == "json" {
		err = rep.writeJSON(s.Out)
	} else {
		err = rep.writeText(s.Out, s.Err)
	}
	switch {
	case parent.Err() != nil:
		return cmdutil.ExitInterrupted
	case err != nil:
		cmdutil.PrintError(s.Err, fmt.Errorf("writing the report: %w", err))
		return cmdutil.ExitFailed
	case !rep.OK:
		return cmdutil.ExitFailed
	}
	return cmdutil.ExitOK
}

// noLeaderResult is the outcome of a partition the metadata gives no
// leader: no canary is sent to it.
func noLeaderResult(p protocol.MetadataResponsePartition) partitionResult {
	res := partitionResult{Partition: p.PartitionIndex, Leader: p.LeaderID, OK: true}
	detail := errors.New("the metadata names no leader")
	if kerr := protocol.ErrorForCode(p.ErrorCode); kerr != nil {
		detail = fmt.Errorf("the metadata names no leader: %w", kerr)
	}
	res.fail("no leader", detail)
	return res
}

// newRunID returns the run id the canaries carry: the UTC start time and
// a random suffix, e.g. 20261130T144100Z-1a2b3c4d.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
