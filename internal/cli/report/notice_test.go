package report

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kproduce/kproduce/pkg/network"
)

func TestNotices(t *testing.T) {
	var b strings.Builder
	waiting := int64(42)
	n := NewNotices(func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }, func() int64 { return waiting })
	node := network.Node{ID: 2, Host: "k2", Port: 9092}
	at := time.Date(2026, 1, 2, 12, 0, 1, 0, time.UTC)
	n.Notify(network.Notice{Kind: network.NoticeBrokerDown, Node: node, At: at, Since: at,
		Err: errors.New("broker 2 (k2:9092): disconnected: EOF")})
	n.Notify(network.Notice{Kind: network.NoticeBrokerUp, Node: node, At: at.Add(4200 * time.Millisecond), Since: at})
	n.Notify(network.Notice{Kind: network.NoticeBootstrapFailure, Node: network.Node{ID: -1, Host: "k1", Port: 9092}, At: at,
		Deadline: at.Add(10 * time.Second), Err: errors.New("bootstrap broker k1:9092: disconnected: cannot connect: connection refused")})
	assert.Equal(t, "kproduce: lost broker 2 (k2:9092) at 12:00:01: disconnected: EOF; retrying until it is back or the records time out (42 records waiting)\n"+
		"kproduce: broker 2 (k2:9092) is back after 4.2s\n"+
		"kproduce: bootstrap broker k1:9092: disconnected: cannot connect: connection refused; retrying for up to 10s\n", b.String())

	var w strings.Builder
	NewNoticesTo(&w).Notify(network.Notice{Kind: network.NoticeBrokerDown, Node: node, At: at, Since: at, Err: errors.New("x"), Final: true})
	assert.Equal(t, "kproduce: lost broker 2 (k2:9092): x; not retrying it\n", w.String(), "no count without a counter")
}
