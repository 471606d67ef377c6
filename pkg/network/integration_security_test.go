package network_test

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network"
)

// TestIntegrationSCRAMOverMutualTLS produces through kfake listening with
// mutual TLS and SCRAM, and reads the records back with franz-go.
func TestIntegrationSCRAMOverMutualTLS(t *testing.T) {
	p := newTestPKI(t, time.Now())
	serverTLS := &tls.Config{Certificates: []tls.Certificate{p.server.TLS}, ClientCAs: p.pki.Pool(),
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	clientTLS := &tls.Config{RootCAs: p.pki.Pool(), Certificates: []tls.Certificate{p.client.TLS}, MinVersion: tls.VersionTLS12}
	for _, tt := range []struct {
		mech    string
		hash    network.SCRAMHash
		kgoAuth func(scram.Auth) kgo.Opt
	}{
		{"SCRAM-SHA-256", network.SCRAMSHA256, func(a scram.Auth) kgo.Opt { return kgo.SASL(a.AsSha256Mechanism()) }},
		{"SCRAM-SHA-512", network.SCRAMSHA512, func(a scram.Auth) kgo.Opt { return kgo.SASL(a.AsSha512Mechanism()) }},
	} {
		t.Run(tt.mech, func(t *testing.T) {
			cluster := startCluster(t, kfake.TLS(serverTLS), kfake.EnableSASL(), kfake.Superuser(tt.mech, "alice", "s3cret"))
			addrs := cluster.ListenAddrs()
			mech := network.SCRAMMechanism{Hash: tt.hash, Username: "alice", Password: "s3cret"}
			rc := newRealClient(t, addrs, network.Config{SASL: mech}, network.SocketConfig{TLS: clientTLS})
			md := rc.waitTopic("t", 6)
			base := time.Now().UnixMilli()
			rc.produceToLeaders(md, "t", base)
			records := kafkatest.ConsumeAll(t, addrs, "t", 18, kgo.DialTLSConfig(clientTLS.Clone()),
				tt.kgoAuth(scram.Auth{User: "alice", Pass: "s3cret"}))
			checkRecords(t, records, 6, base)
		})
	}
}

// TestIntegrationSecurityFailuresAreFinal checks each failure against a
// real kfake listener ends the broker at once, without a retry.
func TestIntegrationSecurityFailuresAreFinal(t *testing.T) {
	p := newTestPKI(t, time.Now())
	serverTLS := &tls.Config{Certificates: []tls.Certificate{p.server.TLS}, MinVersion: tls.VersionTLS12}
	mtls := serverTLS.Clone()
	mtls.ClientCAs, mtls.ClientAuth = p.pki.Pool(), tls.RequireAndVerifyClientCert
	trusting := &tls.Config{RootCAs: p.pki.Pool()}
	tests := []struct {
		name    string
		cluster []kfake.Opt
		cfg     network.Config
		sock    network.SocketConfig
		is      error
		text    string
	}{
		{"untrusted broker certificate", []kfake.Opt{kfake.TLS(serverTLS)}, network.Config{},
			network.SocketConfig{TLS: &tls.Config{}}, network.ErrTLSHandshake, "certificate signed by unknown authority"},
		{"wrong server name", []kfake.Opt{kfake.TLS(serverTLS)}, network.Config{},
			network.SocketConfig{TLS: &tls.Config{RootCAs: p.pki.Pool(), ServerName: "kafka.example.com"}}, network.ErrTLSHandshake, "kafka.example.com"},
		{"no client certificate", []kfake.Opt{kfake.TLS(mtls)}, network.Config{},
			network.SocketConfig{TLS: trusting}, network.ErrTLSHandshake, "certificate required"},
		{"plaintext client, TLS listener", []kfake.Opt{kfake.TLS(serverTLS)}, network.Config{},
			network.SocketConfig{}, network.ErrClosedBeforeResponse, "is the listener TLS? try --tls"},
		{"wrong SCRAM password", []kfake.Opt{kfake.TLS(serverTLS), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "alice", "s3cret")},
			network.Config{SASL: network.SCRAMMechanism{Hash: network.SCRAMSHA512, Username: "alice", Password: "wrong"}},
			network.SocketConfig{TLS: trusting}, network.ErrAuthentication, "closed the connection during SASL authentication"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster := startCluster(t, tt.cluster...)
			start := time.Now()
			err := finalFailure(t, cluster.ListenAddrs()[0], tt.cfg, tt.sock)
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.text)
			require.Less(t, time.Since(start), testDeadline)
		})
	}
}
