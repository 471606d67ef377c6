package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFindCoordinatorResponseCoordinator(t *testing.T) {
	t.Run("v3 top-level fields", func(t *testing.T) {
		m := &FindCoordinatorResponse{ErrorCode: 15, NodeID: 2, Host: "h", Port: 9092}
		c, ok := m.Coordinator("txn")
		assert.True(t, ok)
		assert.Equal(t, FindCoordinatorResponseCoordinator{Key: "txn", NodeID: 2, Host: "h", Port: 9092, ErrorCode: 15}, c)
	})
	t.Run("v4 entry of the key", func(t *testing.T) {
		m := findCoordinatorResponseFull()
		c, ok := m.Coordinator("txn-2")
		assert.True(t, ok)
		assert.Equal(t, int16(16), c.ErrorCode)
		_, ok = m.Coordinator("other")
		assert.False(t, ok, "a v4 response without the key answers nothing")
	})
}
