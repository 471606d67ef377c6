package admin

import (
	"context"
	"fmt"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// metadataLocked is Metadata with c.mu held.
func (c *Client) metadataLocked(ctx context.Context, topics []string) (*protocol.MetadataResponse, error) {
	req := &protocol.MetadataRequest{}
	if topics != nil {
		req.Topics = make([]protocol.MetadataRequestTopic, len(topics))
		for i := range topics {
			req.Topics[i].Name = &topics[i]
		}
	}
	resp, err := c.roundTrip(ctx, c.leastLoaded, req)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	md := resp.(*protocol.MetadataResponse)
	c.md.Update(md, c.clock.Now()) // later calls know the brokers it lists
	return md, nil
}
