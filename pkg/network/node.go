package network

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Node is a broker: its id, address and rack. Bootstrap brokers, known
// before the first metadata response, have the negative ids -1, -2, ...
type Node struct {
	ID   int32
	Host string
	Port int32
	Rack *string
}

// Addr is the node's address as host:port, with IPv6 hosts bracketed.
func (n Node) Addr() string {
	return net.JoinHostPort(n.Host, strconv.Itoa(int(n.Port)))
}

// String names the node the way error messages do: "broker 2
// (127.0.0.1:9093)", or "bootstrap broker 127.0.0.1:9092" for a node known
// only from the bootstrap list.
func (n Node) String() string {
	if n.ID < 0 {
		return "bootstrap broker " + n.Addr()
	}
	return fmt.Sprintf("broker %d (%s)", n.ID, n.Addr())
}

// BootstrapNodes parses host:port addresses into bootstrap nodes with the
// ids -1, -2, ... in order. A missing port means Kafka's default, 9092.
func BootstrapNodes(addrs []string) ([]Node, error) {
	nodes := make([]Node, 0, len(addrs))
	for i, a := range addrs {
		host, portStr, err := net.SplitHostPort(a)
		if err != nil {
			if _, err2 := strconv.Atoi(a); err2 == nil || a == "" {
				return nil, fmt.Errorf("bootstrap address %q: %w", a, err)
			}
			// No port: "host", "[v6]" or a bare IPv6 address.
			host, portStr = strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"), "9092"
		}
		port, err := strconv.ParseUint(portStr, 10, 16)
		if err != nil || port == 0 {
			return nil, fmt.Errorf("bootstrap address %q: invalid port %q", a, portStr)
		}
		if host == "" {
			return nil, fmt.Errorf("bootstrap address %q: empty host", a)
		}
		nodes = append(nodes, Node{ID: int32(-1 - i), Host: host, Port: int32(port)})
	}
	return nodes, nil
}
