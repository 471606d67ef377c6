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
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDevBrokerServesKafka(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, []string{"-brokers", "2", "-port", "0", "-partitions", "4", "-topics", "seeded,other"}, pw, io.Discard)
		_ = pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "ready "), line)
	addrs := strings.Split(strings.TrimSpace(strings.TrimPrefix(line, "ready ")), ",")
	require.Len(t, addrs, 2)
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.AllowAutoTopicCreation())
	require.NoError(t, err)
	defer cl.Close()

	req := kmsg.NewPtrMetadataRequest()
	for _, name := range []string{"seeded", "other"} {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	assert.Len(t, resp.Brokers, 2)
	require.Len(t, resp.Topics, 2)
	for _, topic := range resp.Topics {
		assert.Zero(t, topic.ErrorCode, *topic.Topic)
		assert.Len(t, topic.Partitions, 4, *topic.Topic)
	}

	rec := &kgo.Record{Topic: "auto-created", Value: []byte("hello")}
	require.NoError(t, cl.ProduceSync(ctx, rec).FirstErr())

	consumer, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ConsumeTopics("auto-created"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer consumer.Close()
	fetches := consumer.PollFetches(ctx)
	require.NoError(t, ctx.Err())
	require.Len(t, fetches.Records(), 1)
	assert.Equal(t, "hello", string(fetches.Records()[0].Value))

	stop()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("run did not return after its context ended")
	}
}

func TestDevBrokerFlags(t *testing.T) {
	for _, args := range [][]string{{"-brokers", "0"}, {"-port", "65535", "-brokers", "2"}, {"-partitions", "0"}, {"extra"}, {"-nope"}} {
		_, err := parseFlags(args, io.Discard)
		assert.Error(t, err, "%v", args)
	}
	c, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, config{brokers: 1, port: 9092, partitions: 6, topics: []string{"test"}}, c)
}
