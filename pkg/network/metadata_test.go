package network

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

func oneBroker() *protocol.MetadataResponse {
	return &protocol.MetadataResponse{Brokers: []protocol.MetadataResponseBroker{{NodeID: 1, Host: "h", Port: 9092}}}
}

func newTestMetadata(cfg MetadataConfig) *Metadata {
	cfg.Jitter = func() float64 { return 1 }
	return NewMetadata(cfg, []Node{{ID: -1, Host: "h", Port: 9092}})
}

func TestMetadataTimeToNextUpdate(t *testing.T) {
	start := time.Unix(5000, 0)
	m := newTestMetadata(MetadataConfig{RefreshBackoff: 100 * time.Millisecond, MaxAge: time.Minute})
	assert.Equal(t, time.Duration(0), m.TimeToNextUpdate(start), "bootstrap: due at once")

	m.Update(oneBroker(), start)
	assert.Equal(t, time.Minute, m.TimeToNextUpdate(start), "fresh: due at max age")
	assert.Equal(t, 30*time.Second, m.TimeToNextUpdate(start.Add(30*time.Second)))
	assert.Equal(t, time.Duration(0), m.TimeToNextUpdate(start.Add(time.Minute)), "expired")

	m.RequestUpdate()
	assert.Equal(t, 100*time.Millisecond, m.TimeToNextUpdate(start), "requested: due after the refresh backoff")
	assert.Equal(t, 40*time.Millisecond, m.TimeToNextUpdate(start.Add(60*time.Millisecond)))
	assert.Equal(t, time.Duration(0), m.TimeToNextUpdate(start.Add(100*time.Millisecond)))
}

func TestMetadataFailureBackoff(t *testing.T) {
	now := time.Unix(5000, 0)
	m := newTestMetadata(MetadataConfig{RefreshBackoff: 100 * time.Millisecond, RefreshBackoffMax: time.Second})
	cause := errors.New("boom")
	for i, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		want *= time.Millisecond
		ch := m.Updated()
		m.Failed(cause, now)
		assert.Equal(t, want, m.TimeToNextUpdate(now), "failure %d", i+1)
		assert.ErrorIs(t, m.LastError(), cause)
		select {
		case <-ch:
		default:
			t.Fatal("Failed must close the Updated channel")
		}
		assert.NotEqual(t, ch, m.Updated(), "a fresh channel after each notification")
		now = now.Add(want)
		assert.Equal(t, time.Duration(0), m.TimeToNextUpdate(now))
	}
	m.Update(oneBroker(), now)
	assert.NoError(t, m.LastError())
	m.RequestUpdate()
	assert.Equal(t, 100*time.Millisecond, m.TimeToNextUpdate(now), "success resets the backoff")
}

func TestMetadataDefaults(t *testing.T) {
	m := NewMetadata(MetadataConfig{}, nil)
	assert.Equal(t, DefaultRefreshBackoff, m.cfg.RefreshBackoff)
	assert.Equal(t, DefaultRefreshBackoffMax, m.cfg.RefreshBackoffMax)
	assert.Equal(t, DefaultMetadataMaxAge, m.cfg.MaxAge)
	for range 100 {
		j := m.cfg.Jitter()
		require.GreaterOrEqual(t, j, 0.8)
		require.Less(t, j, 1.2)
	}
	now := time.Unix(1, 0)
	m.Failed(errors.New("x"), now)
	d := m.TimeToNextUpdate(now)
	assert.GreaterOrEqual(t, d, 80*time.Millisecond)
	assert.LessOrEqual(t, d, 120*time.Millisecond)
}

func TestMetadataTopicsAndRequestVersion(t *testing.T) {
	now := time.Unix(5000, 0)
	m := newTestMetadata(MetadataConfig{AllowAutoTopicCreation: true})
	m.Update(oneBroker(), now)
	m.AddTopic("b")
	m.AddTopic("a")
	m.AddTopic("b")
	assert.Equal(t, []string{"a", "b"}, m.Topics())

	req, v := m.newRequest()
	assert.True(t, req.AllowAutoTopicCreation)
	require.Len(t, req.Topics, 2)
	assert.Equal(t, "a", *req.Topics[0].Name)
	assert.Equal(t, "b", *req.Topics[1].Name)

	// A topic added while the fetch is in flight needs another fetch, at
	// once: a first lookup does not wait for the refresh backoff.
	m.AddTopic("c")
	m.update(oneBroker(), v, now)
	assert.Equal(t, time.Duration(0), m.TimeToNextUpdate(now))
	req, v = m.newRequest()
	require.Len(t, req.Topics, 3)
	m.update(oneBroker(), v, now)
	assert.Equal(t, DefaultMetadataMaxAge, m.TimeToNextUpdate(now))
	m.RequestUpdate()
	assert.Equal(t, DefaultRefreshBackoff, m.TimeToNextUpdate(now), "a topic known already: the backoff applies")
	m.AddTopics("a", "c")
	assert.Equal(t, DefaultRefreshBackoff, m.TimeToNextUpdate(now), "no new topic")

	all := newTestMetadata(MetadataConfig{AllTopics: true})
	all.AddTopic("x")
	req, _ = all.newRequest()
	assert.Nil(t, req.Topics, "nil asks for every topic")
	none := newTestMetadata(MetadataConfig{})
	req, _ = none.newRequest()
	assert.NotNil(t, req.Topics, "an empty list asks for no topic")
	assert.Empty(t, req.Topics)
}

// TestMetadataNewTopicsSkipOnlyTheSuccessBackoff: topics added together go
// in one request, due at once after a successful fetch; after a failed
// fetch they wait for its backoff like any other fetch.
func TestMetadataNewTopicsSkipOnlyTheSuccessBackoff(t *testing.T) {
	now := time.Unix(5000, 0)
	m := newTestMetadata(MetadataConfig{RefreshBackoff: 100 * time.Millisecond, MaxAge: time.Minute})
	m.Update(oneBroker(), now)
	m.AddTopics("x", "y", "z")
	assert.Equal(t, time.Duration(0), m.TimeToNextUpdate(now))
	req, _ := m.newRequest()
	require.Len(t, req.Topics, 3, "added together, fetched together")
	assert.Equal(t, 100*time.Millisecond, m.TimeToNextUpdate(now), "the request is built: the next fetch waits")

	m.Failed(errors.New("boom"), now)
	m.AddTopic("w")
	assert.Equal(t, 100*time.Millisecond, m.TimeToNextUpdate(now), "after a failure the backoff holds")
	m.Update(oneBroker(), now.Add(100*time.Millisecond))
	assert.Equal(t, time.Duration(0), m.TimeToNextUpdate(now.Add(100*time.Millisecond)), "w was not fetched yet")
}

func TestMetadataEmptyBrokerListIsAFailure(t *testing.T) {
	now := time.Unix(5000, 0)
	m := newTestMetadata(MetadataConfig{})
	m.Update(&protocol.MetadataResponse{}, now)
	assert.ErrorIs(t, m.LastError(), ErrNoBrokersInMetadata)
	assert.True(t, m.Fetch().IsBootstrap())
	assert.Equal(t, 0, m.UpdateVersion())
}

func TestMetadataConcurrentUse(t *testing.T) {
	m := newTestMetadata(MetadataConfig{})
	now := time.Unix(1, 0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				m.AddTopic(fmt.Sprintf("t%d-%d", g, i%10))
				m.RequestUpdate()
				_ = m.Fetch().Nodes()
				_ = m.Updated()
				_ = m.TimeToNextUpdate(now)
			}
		}()
	}
	wait := m.Updated()
	for range 200 {
		m.Update(oneBroker(), now)
	}
	wg.Wait()
	<-wait // closed by the first update
	assert.Len(t, m.Topics(), 40)
	assert.Equal(t, 200, m.UpdateVersion())
}
