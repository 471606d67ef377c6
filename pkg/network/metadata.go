package network

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// MetadataConfig is the refresh policy of a Metadata.
type MetadataConfig struct {
	// RefreshBackoff is the minimum time between two fetches, and the
	// first backoff after a failed one (retry.backoff.ms, default 100ms).
	RefreshBackoff time.Duration
	// RefreshBackoffMax caps the exponential backoff after repeated
	// failures (retry.backoff.max.ms, default 1s).
	RefreshBackoffMax time.Duration
	// MaxAge forces a refresh when the snapshot is older
	// (metadata.max.age.ms, default 5m).
	MaxAge time.Duration
	// AllowAutoTopicCreation is sent in Metadata requests.
	AllowAutoTopicCreation bool
	// AllTopics asks for every topic of the cluster instead of only the
	// topics added with AddTopic.
	AllTopics bool
	// Jitter returns the factor applied to each backoff, in [0.8, 1.2]
	// (default: uniform, from a math/rand/v2 source of this Metadata).
	Jitter func() float64
}

// Defaults of MetadataConfig, as in the Java producer.
const (
	DefaultRefreshBackoff    = 100 * time.Millisecond
	DefaultRefreshBackoffMax = time.Second
	DefaultMetadataMaxAge    = 5 * time.Minute
)

// ErrNoBrokersInMetadata is the failure recorded for a Metadata response
// that lists no broker (a broker still starting up); it is retried.
var ErrNoBrokersInMetadata = errors.New("metadata response lists no brokers")

// Metadata is the cluster metadata cache and its refresh policy: Kafka's
// Metadata plus the state of its DefaultMetadataUpdater. The Client fetches
// updates; any goroutine may read the snapshot, add topics and request or
// wait for an update.
type Metadata struct {
	cfg     MetadataConfig
	backoff exponentialBackoff
	current atomic.Pointer[Cluster]

	mu sync.Mutex // guards every field below
	// topics are the topics to fetch; requestVersion counts the changes
	// that need a fetch, so a response to an older request does not clear
	// the need to fetch newer topics.
	topics         []string // sorted
	requestVersion int
	needUpdate     bool
	// newTopics is set when a topic was added since the last request was
	// built: the next fetch skips the refresh backoff of a success.
	newTopics     bool
	failures      int       // consecutive failed fetches
	backoffUntil  time.Time // no fetch before
	lastSuccess   time.Time // time of the last successful fetch
	lastErr       error
	updateVersion int
	updated       chan struct{}
	wake          func() // wakes the Client's Poll; nil until a Client uses this Metadata
}

// NewMetadata returns a Metadata whose snapshot holds only the bootstrap
// brokers (see BootstrapNodes). An update is due at once.
func NewMetadata(cfg MetadataConfig, bootstrap []Node) *Metadata {
	if cfg.RefreshBackoff <= 0 {
		cfg.RefreshBackoff = DefaultRefreshBackoff
	}
	if cfg.RefreshBackoffMax <= 0 {
		cfg.RefreshBackoffMax = DefaultRefreshBackoffMax
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultMetadataMaxAge
	}
	if cfg.Jitter == nil {
		cfg.Jitter = newJitter()
	}
	m := &Metadata{
		cfg:        cfg,
		backoff:    newExponentialBackoff(cfg.RefreshBackoff, cfg.RefreshBackoffMax, cfg.Jitter),
		needUpdate: true,
		updated:    make(chan struct{}),
	}
	m.current.Store(newBootstrapCluster(bootstrap))
	return m
}

// newJitter returns a uniform jitter in [0.8, 1.2) from its own source,
// safe for concurrent use.
func newJitter() func() float64 {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		return 0.8 + 0.4*r.Float64()
	}
}

// Fetch returns the current snapshot. Safe from any goroutine.
func (m *Metadata) Fetch() *Cluster { return m.current.Load() }

// RequestUpdate asks for a fetch as soon as the backoff allows. Safe from
// any goroutine; it wakes the Client's Poll.
func (m *Metadata) RequestUpdate() {
	m.requestUpdate()
	m.wakeClient()
}

// requestUpdate is RequestUpdate without waking the Client, for the Client
// itself.
func (m *Metadata) requestUpdate() {
	m.mu.Lock()
	m.needUpdate = true
	m.requestVersion++
	m.mu.Unlock()
}

// AddTopic adds a topic to fetch; a new topic requests an update. Safe
// from any goroutine.
func (m *Metadata) AddTopic(topic string) { m.AddTopics(topic) }

// AddTopics adds topics to fetch, all in the same next fetch, with one
// wakeup of the Client. A topic not added before requests an update that
// does not wait for the refresh backoff of the last successful fetch (only
// the backoff after a failed one applies): the first lookup of a topic is
// not delayed. Safe from any goroutine.
func (m *Metadata) AddTopics(topics ...string) {
	added := false
	m.mu.Lock()
	for _, topic := range topics {
		i, found := slices.BinarySearch(m.topics, topic)
		if !found {
			m.topics = slices.Insert(m.topics, i, topic)
			added = true
		}
	}
	if added {
		m.needUpdate = true
		m.newTopics = true
		m.requestVersion++
	}
	m.mu.Unlock()
	if added {
		m.wakeClient()
	}
}

// Topics returns the topics added with AddTopic, sorted.
func (m *Metadata) Topics() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.topics)
}

// Updated returns a channel closed at the next successful update or failed
// fetch; each call after that returns a fresh channel. Safe from any
// goroutine: a producer waiting for a topic's partitions loops on Fetch and
// Updated.
func (m *Metadata) Updated() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.updated
}

// TimeToNextUpdate is how long until a fetch is due: 0 when an update was
// requested (or the snapshot is older than MaxAge) and the backoff has
// passed, or when a topic was added (see AddTopics) and the last fetch
// did not fail; otherwise the time until the snapshot expires, but at least the
// backoff remaining.
func (m *Metadata) TimeToNextUpdate(now time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.newTopics && m.failures == 0 {
		return 0 // a first lookup: only a failure's backoff delays it
	}
	var toExpire time.Duration
	if !m.needUpdate {
		toExpire = max(m.lastSuccess.Add(m.cfg.MaxAge).Sub(now), 0)
	}
	return max(toExpire, m.backoffUntil.Sub(now), 0)
}

// Update installs a new snapshot built from a Metadata response (topic and
// partition errors are kept per topic and partition) and clears the update
// request. A response listing no broker counts as a failed fetch.
func (m *Metadata) Update(resp *protocol.MetadataResponse, now time.Time) {
	m.mu.Lock()
	v := m.requestVersion
	m.mu.Unlock()
	m.update(resp, v, now)
}

// update is Update for a response to a request built when the request
// version was requestVersion: the update request is cleared only if no
// topic was added or update requested since.
func (m *Metadata) update(resp *protocol.MetadataResponse, requestVersion int, now time.Time) {
	if len(resp.Brokers) == 0 {
		m.Failed(ErrNoBrokersInMetadata, now)
		return
	}
	prev := m.current.Load()
	if prev.IsBootstrap() {
		prev = nil
	}
	c := newClusterFromResponse(resp, prev)

	m.mu.Lock()
	m.current.Store(c)
	if requestVersion == m.requestVersion {
		m.needUpdate = false
	}
	m.failures = 0
	m.backoffUntil = now.Add(m.backoff.backoff(0))
	m.lastSuccess = now
	m.lastErr = nil
	m.updateVersion++
	m.notifyLocked()
	m.mu.Unlock()
}

// Failed records a failed fetch: the backoff before the next one grows
// exponentially (with jitter) up to RefreshBackoffMax.
func (m *Metadata) Failed(err error, now time.Time) {
	m.mu.Lock()
	m.failures++
	m.backoffUntil = now.Add(m.backoff.backoff(m.failures - 1))
	m.lastErr = err
	m.notifyLocked()
	m.mu.Unlock()
}

// LastError is the error of the last failed fetch, or nil when the last
// fetch succeeded.
func (m *Metadata) LastError() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastErr
}

// UpdateVersion counts the successful updates.
func (m *Metadata) UpdateVersion() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.updateVersion
}

// newRequest builds the Metadata request for the current topics and
// returns the request version it answers.
func (m *Metadata) newRequest() (*protocol.MetadataRequest, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.newTopics = false
	req := &protocol.MetadataRequest{AllowAutoTopicCreation: m.cfg.AllowAutoTopicCreation}
	if !m.cfg.AllTopics {
		req.Topics = make([]protocol.MetadataRequestTopic, len(m.topics))
		for i, t := range m.topics {
			req.Topics[i].Name = &t // t is a fresh copy per iteration
		}
	}
	return req, m.requestVersion
}

// setWakeup installs the function that wakes the Client's Poll.
func (m *Metadata) setWakeup(fn func()) {
	m.mu.Lock()
	m.wake = fn
	m.mu.Unlock()
}

func (m *Metadata) wakeClient() {
	m.mu.Lock()
	fn := m.wake
	m.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// notifyLocked closes the Updated channel and hands out a fresh one.
func (m *Metadata) notifyLocked() {
	close(m.updated)
	m.updated = make(chan struct{})
}
