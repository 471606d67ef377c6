// Package e2esasl runs the whole kproduce command in-process against an
// in-process cluster (kfake) behind a SASL front, for the mechanisms
// kfake does not serve (OAUTHBEARER, AWS_MSK_IAM, GSSAPI) and for
// re-authentication, and reads the records back with franz-go's kgo.
package e2esasl

import (
	"os"
	"testing"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestMain isolates the tests from the machine's kproduce config file and
// environment.
func TestMain(m *testing.M) { os.Exit(kafkatest.RunIsolated(m)) }
