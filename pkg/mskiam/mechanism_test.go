package mskiam_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/awstest"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
	"github.com/kproduce/kproduce/pkg/mskiam"
	"github.com/kproduce/kproduce/pkg/network"
)

// waker signals wakeups.
type waker chan struct{}

func (w waker) Wakeup() {
	select {
	case w <- struct{}{}:
	default:
	}
}

// prepared waits until the mechanism's credentials are ready.
func prepared(t *testing.T, m *mskiam.Mechanism) waker {
	t.Helper()
	w := make(waker, 1)
	deadline := time.After(10 * time.Second)
	for {
		err := m.Prepare(w)
		if err == nil {
			t.Cleanup(func() { m.Release(w) })
			return w
		}
		require.ErrorIs(t, err, network.ErrSASLPending)
		select {
		case <-w:
		case <-deadline:
			t.Fatalf("credentials not ready: %v", err)
		}
	}
}

// verify runs a session of m for host against the front's verifier.
func verify(t *testing.T, m *mskiam.Mechanism, host string, cfg saslfront.AWSIAMConfig) (string, error) {
	t.Helper()
	s, err := m.NewSession(network.Node{ID: 1, Host: host, Port: 9098})
	if err != nil {
		return "", err
	}
	payload, done, err := s.Step(nil)
	require.NoError(t, err)
	require.False(t, done)
	cfg.Host = host
	ex := saslfront.AWSIAM(cfg).Start(saslfront.ConnInfo{ID: 1, Now: time.Now()})
	answer, ok, err := ex.Step(payload)
	if err != nil {
		return "", err
	}
	require.True(t, ok)
	_, done, err = s.Step(answer)
	require.NoError(t, err)
	require.True(t, done)
	return ex.(saslfront.Principal).Principal(), nil
}

var front = saslfront.AWSIAMConfig{Region: "eu-west-1", Credentials: map[string]saslfront.AWSCredential{
	"AKIDENV":  {SecretKey: "env/secret+1"},
	"ASIAROLE": {SecretKey: "role-secret", SessionToken: "role-token", Principal: "assumed-role"},
}}

// The default chain's environment credentials sign a payload the broker
// accepts; the region comes from the broker's host name.
func TestEnvironmentCredentials(t *testing.T) {
	awstest.Isolate(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "env/secret+1")
	m := mskiam.New(mskiam.Config{})
	prepared(t, m)
	principal, err := verify(t, m, "b-1.demo.abc123.c2.kafka.eu-west-1.amazonaws.com", front)
	require.NoError(t, err)
	assert.Equal(t, "AKIDENV", principal)

	_, err = m.NewSession(network.Node{Host: "127.0.0.1"})
	assert.EqualError(t, err, "sasl aws_msk_iam: cannot tell the AWS region: the broker host 127.0.0.1 names none; give --aws-region or set AWS_REGION")

	t.Setenv("AWS_REGION", "us-east-2")
	m2 := mskiam.New(mskiam.Config{})
	prepared(t, m2)
	_, err = verify(t, m2, "127.0.0.1", front)
	assert.ErrorContains(t, err, "signed for region us-east-2, this cluster is in eu-west-1")
	m3 := mskiam.New(mskiam.Config{Region: "eu-west-1"})
	prepared(t, m3)
	_, err = verify(t, m3, "127.0.0.1", front)
	assert.NoError(t, err, "--aws-region wins")
}

// A profile of the shared credentials file.
func TestProfile(t *testing.T) {
	awstest.Isolate(t)
	writeFile(t, "AWS_SHARED_CREDENTIALS_FILE", "[kafka]\naws_access_key_id = AKIDENV\naws_secret_access_key = env/secret+1\n")
	writeFile(t, "AWS_CONFIG_FILE", "[profile kafka]\nregion = eu-west-1\n")
	m := mskiam.New(mskiam.Config{Profile: "kafka"})
	prepared(t, m)
	_, err := verify(t, m, "127.0.0.1", front)
	assert.NoError(t, err)

	bad := mskiam.New(mskiam.Config{Profile: "nope"})
	w := make(waker, 1)
	defer bad.Release(w)
	require.ErrorIs(t, bad.Prepare(w), network.ErrSASLPending)
	<-w
	err = bad.Prepare(w)
	require.Error(t, err)
	assert.NotErrorIs(t, err, network.ErrSASLPending)
	assert.Contains(t, err.Error(), "AWS configuration:")
	assert.Contains(t, err.Error(), "nope")
}

// --aws-role-arn exchanges the chain's credentials for the role's
// (temporary, with a session token), through STS.
func TestAssumeRole(t *testing.T) {
	awstest.Isolate(t)
	sts := awstest.NewSTS(awstest.Credentials{AccessKeyID: "ASIAROLE", SecretAccessKey: "role-secret", SessionToken: "role-token", Lifetime: time.Hour})
	defer sts.Close()
	t.Setenv("AWS_ENDPOINT_URL_STS", sts.URL())
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "env/secret+1")
	m := mskiam.New(mskiam.Config{Region: "eu-west-1", RoleARN: "arn:aws:iam::123456789012:role/kafka-writer"})
	prepared(t, m)
	principal, err := verify(t, m, "127.0.0.1", front)
	require.NoError(t, err)
	assert.Equal(t, "assumed-role", principal)
	assert.Equal(t, []string{"arn:aws:iam::123456789012:role/kafka-writer"}, sts.Roles())
}

func TestWrongCredentials(t *testing.T) {
	awstest.Isolate(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
	m := mskiam.New(mskiam.Config{Region: "eu-west-1"})
	prepared(t, m)
	_, err := verify(t, m, "127.0.0.1", front)
	assert.ErrorContains(t, err, "the signature does not match")
}

func TestRegionFromHost(t *testing.T) {
	for host, want := range map[string]string{
		"b-1.demo.abc123.c2.kafka.eu-west-1.amazonaws.com":         "eu-west-1",
		"b-2.x.kafka.us-gov-west-1.amazonaws.com.":                 "us-gov-west-1",
		"vpce-0a1b.kafka.ap-southeast-2.vpce.amazonaws.com":        "ap-southeast-2",
		"boot-abc.c1.kafka-serverless.cn-north-1.amazonaws.com.cn": "cn-north-1",
		"kafka.example.com": "", "127.0.0.1": "",
	} {
		got, ok := mskiam.RegionFromHost(host)
		assert.Equal(t, want, got, host)
		assert.Equal(t, want != "", ok, host)
	}
}
