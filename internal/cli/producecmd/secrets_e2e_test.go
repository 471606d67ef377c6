package producecmd_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestSecretsNeverShownOnTheWire runs real loads against a SASL PLAIN
// cluster whose password arrives by each secret property, at the debug
// log level, with --resume (so the checkpoint records are written), and
// a run with a wrong password: neither the output nor the records of the
// checkpoint topic show the password.
func TestSecretsNeverShownOnTheWire(t *testing.T) {
	const user, pass = "J\xfcrgen", "S3CRET-WIRE-77"
	c := oneBrokerCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", user, pass))
	jaas := `org.apache.kafka.common.security.plain.PlainLoginModule required username="` + user + `" password="` + pass + `";`
	sasl := []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN"}
	tests := map[string][]string{
		"rpk pass":            {"-X", "user=" + user, "-X", "pass=" + pass, "--sasl-mechanism", "PLAIN"},
		"librdkafka password": append(sasl, "-X", "sasl.username="+user, "--property", "sasl.password="+pass),
		"JAAS":                append(sasl, "--producer-property", "sasl.jaas.config="+jaas),
		"JAAS in a file":      {"--config", writeFile(t, "p.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config="+jaas+"\n")},
		"flag":                {"--sasl-mechanism", "PLAIN", "--sasl-username", user, "--sasl-password", pass},
	}
	i := 0
	for name, give := range tests {
		i++
		t.Run(name, func(t *testing.T) {
			id := fmt.Sprintf("secrets-%d", i)
			args := append([]string{"-b", kafkatest.Brokers(c), "-t", "t", "--log-level", "debug", "--transactional-id", id, "--resume",
				"--resume-topic", "cp"}, give...)
			r := runKproduce(t, strings.NewReader("a\nb\n"), args...)
			require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
			assert.NotContains(t, r.Stdout+r.Stderr, pass)
			assert.Contains(t, r.Stderr, "options", "the debug log is there")

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			recs, err := kafkatest.Consume(ctx, 1, kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("cp"),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
				kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
			require.NoError(t, err)
			for _, rec := range recs {
				assert.NotContains(t, string(rec.Value), pass, "checkpoint record %s", rec.Value)
			}

			wrong := make([]string, len(give))
			for i, a := range give {
				wrong[i] = strings.ReplaceAll(a, pass, pass+"-WRONG")
			}
			if name == "JAAS in a file" {
				wrong[1] = writeFile(t, "p.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config="+
					strings.ReplaceAll(jaas, pass, pass+"-WRONG")+"\n")
			}
			r = runKproduce(t, strings.NewReader("a\n"), append([]string{"-b", kafkatest.Brokers(c), "-t", "t", "--log-level", "debug",
				"--delivery-timeout", "3s"}, wrong...)...)
			assert.Equal(t, cmdutil.ExitFailed, r.Code, r.Stderr)
			assert.NotContains(t, r.Stdout+r.Stderr, pass)
		})
	}
}
