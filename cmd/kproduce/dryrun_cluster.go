package main

import (
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/network"
)

// newMetadataFunc returns a metadataFunc asking the cluster of opts (with
// its TLS and SASL settings) and a function that closes its connections.
// The admin client's Metadata never asks the broker to create a topic.
func newMetadataFunc(opts *Options) (metadataFunc, func(), error) {
	cl, err := admin.New(admin.Config{
		Bootstrap: opts.Brokers,
		Network: network.Config{
			ClientID:       opts.ClientID,
			RequestTimeout: opts.RequestTimeout,
			SASL:           opts.Security.SASL,
		},
		Socket: network.SocketConfig{TLS: opts.Security.TLSConfig},
		Logger: opts.Logger,
	})
	if err != nil {
		return nil, nil, err
	}
	return cl.Metadata, cl.Close, nil
}
