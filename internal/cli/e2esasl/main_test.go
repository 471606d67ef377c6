package e2esasl

import (
	"os"
	"testing"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestMain isolates the tests from the machine's kproduce config file and
// environment.
func TestMain(m *testing.M) { os.Exit(kafkatest.RunIsolated(m)) }
