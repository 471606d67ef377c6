package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
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
	assert.Equal(t, config{brokers: 1, port: 9092, partitions: 6, topics: []string{"test"}, autoCreate: true}, c)
}

func TestDevBrokerSecurity(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	dir := t.TempDir()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, []string{"-port", "0", "-mtls", "-tls-dir", dir, "-sasl", "SCRAM-SHA-256:alice:pa:ss", "-sasl", "plain:bob:pw"}, pw, io.Discard)
		_ = pw.Close()
	}()
	br := bufio.NewReader(pr)
	files := map[string]string{}
	var addrs []string
	for addrs == nil {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		label, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		if label == "ready" {
			addrs = strings.Split(value, ",")
			continue
		}
		files[label] = value
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	require.Equal(t, filepath.Join(dir, "ca.pem"), files["tls-ca"])
	require.Equal(t, filepath.Join(dir, "client.pem"), files["tls-cert"])
	require.Equal(t, filepath.Join(dir, "client.key"), files["tls-key"])

	caPEM, err := os.ReadFile(files["tls-ca"])
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	cert, err := tls.LoadX509KeyPair(files["tls-cert"], files["tls-key"])
	require.NoError(t, err)
	tlsCfg := &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}

	for _, mech := range []sasl.Mechanism{
		scram.Auth{User: "alice", Pass: "pa:ss"}.AsSha256Mechanism(),
		plain.Auth{User: "bob", Pass: "pw"}.AsMechanism(),
	} {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DialTLSConfig(tlsCfg.Clone()), kgo.SASL(mech))
		require.NoError(t, err)
		require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Topic: "test", Value: []byte(mech.Name())}).FirstErr(), mech.Name())
		cl.Close()
	}
	noCert, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DialTLSConfig(&tls.Config{RootCAs: pool}),
		kgo.SASL(plain.Auth{User: "bob", Pass: "pw"}.AsMechanism()), kgo.RequestRetries(0))
	require.NoError(t, err)
	pingCtx, pingCancel := context.WithTimeout(ctx, 5*time.Second)
	assert.Error(t, noCert.Ping(pingCtx), "a client certificate is required")
	pingCancel()
	noCert.Close()

	stop()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("run did not return after its context ended")
	}
}

func TestDevBrokerSecurityFlags(t *testing.T) {
	for _, args := range [][]string{{"-sasl", "PLAIN:u"}, {"-sasl", "GSSAPI:u:p"}, {"-sasl", "PLAIN::p"}, {"-tls-dir", "/tmp/x"}} {
		_, err := parseFlags(args, io.Discard)
		assert.Error(t, err, "%v", args)
	}
	c, err := parseFlags([]string{"-mtls", "-sasl", "scram-sha-512:u:p:q"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, c.tls, "-mtls implies -tls")
	assert.Equal(t, []saslUser{{mechanism: "SCRAM-SHA-512", user: "u", pass: "p:q"}}, c.sasl)
}
