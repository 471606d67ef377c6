package network_test

import (
	"testing"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// discardSelector is a MockSelector that, once discard is set, completes
// every send at once without decoding it: the cost measured is the
// Client's own.
type discardSelector struct {
	*networktest.MockSelector
	discard bool
	events  []network.Event
}

func (s *discardSelector) Send(conn network.ConnID, frame [][]byte) {
	if !s.discard {
		s.MockSelector.Send(conn, frame)
		return
	}
	s.events = append(s.events, network.Event{Kind: network.EventSendCompleted, Conn: conn})
}

func (s *discardSelector) Poll(timeout time.Duration, dst []network.Event) []network.Event {
	dst = s.MockSelector.Poll(timeout, dst)
	dst = append(dst, s.events...)
	s.events = s.events[:0]
	return dst
}

// BenchmarkSendAcksZero measures Send and Poll of a 16 KiB acks=0 Produce
// request (the batch is kept by reference, not copied).
func BenchmarkSendAcksZero(b *testing.B) {
	clock := networktest.NewManualClock(time.Unix(1_000_000, 0))
	md := network.NewMetadata(network.MetadataConfig{}, nil)
	md.Update(metadataResponse(testNodes(), nil), clock.Now())
	sel := &discardSelector{MockSelector: networktest.NewMockSelector()}
	sel.AutoReady(nil)
	c := network.NewClient(baseConfig(), md, sel, clock)
	defer c.Close()
	for i := 0; i < 10 && !c.Ready(1, clock.Now()); i++ {
		c.Poll(0, clock.Now())
	}
	if !c.IsReady(1, clock.Now()) {
		b.Fatal("node 1 not ready")
	}
	sel.discard = true
	batch := make([]byte, 16<<10)
	body := &protocol.ProduceRequest{Acks: 0, TimeoutMs: 1000, Topics: []protocol.ProduceRequestTopic{{
		Name: "t", Partitions: []protocol.ProduceRequestPartition{{Index: 0, Records: batch}},
	}}}
	b.ReportAllocs()
	b.SetBytes(int64(len(batch)))
	for b.Loop() {
		req := c.NewClientRequest(1, body, clock.Now(), false, 0, nil)
		if err := c.Send(req, clock.Now()); err != nil {
			b.Fatal(err)
		}
		if n := len(c.Poll(0, clock.Now())); n != 1 {
			b.Fatalf("%d responses", n)
		}
	}
}
