package main

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// advertiseProduceV0 makes the cluster's ApiVersions answer list Produce
// from version 0, as brokers before Kafka 4.0 did. librdkafka (2.0 at
// least) compresses with gzip, snappy and lz4 only when the broker lists
// Produce v0, and otherwise sends those batches uncompressed, which would
// make a comparison of compressing producers meaningless. The cluster
// still serves Produce from v3 only: a client that picked an older
// version would be disconnected (librdkafka picks the newest both sides
// support).
//
// The answer is the cluster's own, fetched once at start through addr,
// with Produce's minimum lowered; requests above the versions kfake serves
// are left to kfake (KIP-511's fallback).
func advertiseProduceV0(ctx context.Context, cluster *kfake.Cluster, addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return fmt.Errorf("advertise produce v0: %w", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	own, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("advertise produce v0: ask the cluster's versions: %w", err)
	}
	maxVersion := own.Version
	for i := range own.ApiKeys {
		if own.ApiKeys[i].ApiKey == int16(kmsg.Produce) {
			own.ApiKeys[i].MinVersion = 0
		}
	}
	cluster.ControlKey(int16(kmsg.ApiVersions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		if req.GetVersion() > maxVersion {
			return nil, nil, false
		}
		resp := *own
		resp.ApiKeys = append([]kmsg.ApiVersionsResponseApiKey(nil), own.ApiKeys...)
		resp.SetVersion(req.GetVersion())
		return &resp, nil, true
	})
	return nil
}
