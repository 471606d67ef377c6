package network

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNodeAddrAndString(t *testing.T) {
	assert.Equal(t, "127.0.0.1:9092", Node{ID: 1, Host: "127.0.0.1", Port: 9092}.Addr())
	assert.Equal(t, "[::1]:9092", Node{ID: 1, Host: "::1", Port: 9092}.Addr())
	assert.Equal(t, "broker 3 (kafka:9093)", Node{ID: 3, Host: "kafka", Port: 9093}.String())
	assert.Equal(t, "bootstrap broker kafka:9093", Node{ID: -2, Host: "kafka", Port: 9093}.String())
}

func TestBootstrapNodes(t *testing.T) {
	nodes, err := BootstrapNodes([]string{"a:1", "[::1]:2", "b", "::1", "[fe80::1]"})
	require.NoError(t, err)
	assert.Equal(t, []Node{
		{ID: -1, Host: "a", Port: 1},
		{ID: -2, Host: "::1", Port: 2},
		{ID: -3, Host: "b", Port: 9092},
		{ID: -4, Host: "::1", Port: 9092},
		{ID: -5, Host: "fe80::1", Port: 9092},
	}, nodes)

	for _, bad := range []string{"", "a:", ":9092", "a:0", "a:65536", "a:x", "9092"} {
		_, err := BootstrapNodes([]string{bad})
		assert.Error(t, err, "%q", bad)
	}
}
