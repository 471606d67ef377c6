package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// startDevBroker runs the dev broker with args on random ports until the
// test ends and returns its addresses.
func startDevBroker(t *testing.T, args ...string) []string {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-port", "0"}, args...), pw, io.Discard)
		_ = pw.Close()
	}()
	t.Cleanup(func() {
		stop()
		require.NoError(t, <-done)
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "ready "), line)
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return strings.Split(strings.TrimSpace(strings.TrimPrefix(line, "ready ")), ",")
}

// metadataOf asks the cluster for topics with franz-go's client (an
// independent one), allowing auto-creation, and returns each topic's error.
func metadataOf(t *testing.T, addrs []string, topics ...string) map[string]error {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = true
	for _, name := range topics { // none: every topic is listed
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	out := map[string]error{}
	for _, tp := range resp.Topics {
		out[*tp.Topic] = kerr.ErrorForCode(tp.ErrorCode)
	}
	return out
}

// runKproduce runs kproduce in-process with stdin and args.
func runKproduce(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = cli.Execute(context.Background(), args, cmdutil.Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

func TestValidateTopicName(t *testing.T) {
	for _, name := range []string{"t", "a.b_c-D9", strings.Repeat("x", maxTopicNameLength)} {
		assert.NoError(t, validateTopicName(name), name)
	}
	for _, name := range []string{"", ".", "..", "bad topic!", "a/b", "é", strings.Repeat("x", maxTopicNameLength+1)} {
		assert.Error(t, validateTopicName(name), name)
	}
	_, err := parseFlags([]string{"-topics", "ok,bad topic!"}, io.Discard)
	assert.ErrorContains(t, err, `topic name "bad topic!" is illegal`)
}

// TestDevBrokerRejectsInvalidTopicNames: a name Kafka rejects is
// INVALID_TOPIC_EXCEPTION, in Metadata that may auto-create it and in
// CreateTopics, and is never created; kproduce fails its record at once,
// naming the error.
func TestDevBrokerRejectsInvalidTopicNames(t *testing.T) {
	addrs := startDevBroker(t)
	errs := metadataOf(t, addrs, "bad topic!", "good-topic")
	assert.ErrorIs(t, errs["bad topic!"], kerr.InvalidTopicException)
	assert.NoError(t, errs["good-topic"], "a valid name is still auto-created")

	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	require.NoError(t, err)
	defer cl.Close()
	create := kmsg.NewPtrCreateTopicsRequest()
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "also bad?", 1, 1
	create.Topics = append(create.Topics, ct)
	cresp, err := create.RequestWith(context.Background(), cl)
	require.NoError(t, err)
	require.Len(t, cresp.Topics, 1)
	assert.ErrorIs(t, kerr.ErrorForCode(cresp.Topics[0].ErrorCode), kerr.InvalidTopicException)

	code, _, stderr := runKproduce(t, "hello\n", "-b", strings.Join(addrs, ","), "-t", "bad topic!", "--delivery-timeout", "30s")
	assert.Equal(t, cmdutil.ExitFailed, code)
	assert.Contains(t, stderr, "INVALID_TOPIC_EXCEPTION")

	all := metadataOf(t, addrs)
	assert.NotContains(t, all, "bad topic!")
	assert.NotContains(t, all, "also bad?")
	assert.Contains(t, all, "good-topic")
}

// TestDevBrokerAutoCreateOff: with -auto-create=false a missing topic is
// UNKNOWN_TOPIC_OR_PARTITION and stays missing, as on a broker with
// auto.create.topics.enable=false; seeded topics are served.
func TestDevBrokerAutoCreateOff(t *testing.T) {
	addrs := startDevBroker(t, "-auto-create=false", "-topics", "seeded")
	errs := metadataOf(t, addrs, "missing", "seeded")
	assert.ErrorIs(t, errs["missing"], kerr.UnknownTopicOrPartition)
	assert.NoError(t, errs["seeded"])

	code, _, stderr := runKproduce(t, "hello\n", "-b", strings.Join(addrs, ","), "-t", "missing", "--delivery-timeout", "2s")
	assert.Equal(t, cmdutil.ExitFailed, code)
	assert.Contains(t, stderr, "UNKNOWN_TOPIC_OR_PARTITION")
	assert.NotContains(t, metadataOf(t, addrs), "missing")

	code, stdout, stderr := runKproduce(t, "hello\n", "-b", strings.Join(addrs, ","), "-t", "seeded")
	assert.Equal(t, cmdutil.ExitOK, code, stderr)
	assert.Regexp(t, `^seeded/\d+@0\n$`, stdout)
}
