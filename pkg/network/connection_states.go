package network

import (
	"math"
	"time"
)

// ConnectionState is the state of the client's connection to one node
// (Kafka's ConnectionState).
type ConnectionState int8

// The connection states. A node moves Disconnected -> Connecting ->
// CheckingAPIVersions -> (Authenticating ->) Ready, and back to
// Disconnected on any failure, or to AuthenticationFailed, which is final.
const (
	Disconnected ConnectionState = iota
	Connecting
	CheckingAPIVersions
	Authenticating
	Ready
	AuthenticationFailed
)

// String is the state's name.
func (s ConnectionState) String() string {
	switch s {
	case Disconnected:
		return "disconnected"
	case Connecting:
		return "connecting"
	case CheckingAPIVersions:
		return "checking api versions"
	case Authenticating:
		return "authenticating"
	case Ready:
		return "ready"
	case AuthenticationFailed:
		return "authentication failed"
	}
	return "unknown"
}

// maxDelay stands for "no deadline" in delays and timeouts.
const maxDelay = time.Duration(math.MaxInt64)

// nodeConnectionState is the connection bookkeeping of one node.
type nodeConnectionState struct {
	state              ConnectionState
	conn               ConnID // the current connection; 0 when none
	node               Node   // the node as it was when the connection started
	lastConnectAttempt time.Time
	failedAttempts     int           // failures since the last Ready
	reconnectBackoff   time.Duration // wait after lastConnectAttempt before reconnecting
	failedSetups       int           // consecutive connection setup timeouts or failures
	setupTimeout       time.Duration // connection setup timeout of the current attempt
	throttleUntil      time.Time     // the broker asked for no request before this time
	authErr            error
	earlyCloses        int   // ErrClosedBeforeResponse failures in a row
	lastErr            error // why the last connection ended; nil if none did
	// answered: the current connection got a response to a request other
	// than ApiVersions and SASL.
	answered bool
	// downSince is when the outage of the node began (see Notice), zero
	// when it is not down.
	downSince time.Time
	// reauthAt is when the authenticated connection is due for
	// re-authentication (KIP-368), zero when its session has no lifetime;
	// reauth is set while a re-authentication is under way.
	reauthAt time.Time
	reauth   bool
}

// connectionStates is Kafka's ClusterConnectionStates: the state of the
// connection to each node, with exponential reconnect backoff and
// connection setup timeout.
type connectionStates struct {
	nodes     map[int32]*nodeConnectionState
	reconnect exponentialBackoff
	setup     exponentialBackoff
}

func newConnectionStates(reconnect, setup exponentialBackoff) *connectionStates {
	return &connectionStates{nodes: make(map[int32]*nodeConnectionState), reconnect: reconnect, setup: setup}
}

func (cs *connectionStates) get(id int32) *nodeConnectionState { return cs.nodes[id] }

// canConnect reports whether a new connection to id may start now: never
// connected, or disconnected for at least the reconnect backoff. A node
// that failed authentication never reconnects.
func (cs *connectionStates) canConnect(id int32, now time.Time) bool {
	st := cs.nodes[id]
	if st == nil {
		return true
	}
	return st.state == Disconnected && now.Sub(st.lastConnectAttempt) >= st.reconnectBackoff
}

// isBlackedOut reports whether id is disconnected and still backing off.
func (cs *connectionStates) isBlackedOut(id int32, now time.Time) bool {
	st := cs.nodes[id]
	return st != nil && st.state == Disconnected && now.Sub(st.lastConnectAttempt) < st.reconnectBackoff
}

// connectionDelay is how long to wait before the connection state of id
// may change: the backoff remaining when disconnected, the setup timeout
// remaining when connecting, maxDelay otherwise.
func (cs *connectionStates) connectionDelay(id int32, now time.Time) time.Duration {
	st := cs.nodes[id]
	switch {
	case st == nil:
		return 0
	case st.state == Connecting:
		return max(st.lastConnectAttempt.Add(st.setupTimeout).Sub(now), 0)
	case st.state == Disconnected:
		return max(st.reconnectBackoff-now.Sub(st.lastConnectAttempt), 0)
	case st.state == Ready && st.throttleUntil.After(now):
		return st.throttleUntil.Sub(now)
	}
	return maxDelay
}

// connecting enters the connecting state for a new connection conn to node.
// The backoff history is kept unless the node's address changed.
func (cs *connectionStates) connecting(node Node, conn ConnID, now time.Time) *nodeConnectionState {
	st := cs.nodes[node.ID]
	if st == nil || st.node.Addr() != node.Addr() {
		st = &nodeConnectionState{reconnectBackoff: cs.reconnect.backoff(0), setupTimeout: cs.setup.backoff(0)}
		cs.nodes[node.ID] = st
	}
	st.state, st.conn, st.node, st.lastConnectAttempt = Connecting, conn, node, now
	st.answered = false
	st.reauthAt, st.reauth = time.Time{}, false
	return st
}

// disconnected enters the disconnected state: the reconnect backoff grows,
// and so does the setup timeout when the connection never completed.
func (cs *connectionStates) disconnected(id int32, now time.Time) {
	st := cs.nodes[id]
	if st == nil {
		return
	}
	st.lastConnectAttempt = now
	st.reconnectBackoff = cs.reconnect.backoff(st.failedAttempts)
	st.failedAttempts++
	if st.state == Connecting {
		st.failedSetups++
		st.setupTimeout = cs.setup.backoff(st.failedSetups)
	} else {
		cs.resetSetupTimeout(st)
	}
	st.state, st.conn = Disconnected, 0
	st.reauthAt, st.reauth = time.Time{}, false
}

// checkingAPIVersions enters the state after the socket connected.
func (cs *connectionStates) checkingAPIVersions(id int32) {
	if st := cs.nodes[id]; st != nil {
		st.state = CheckingAPIVersions
		cs.resetSetupTimeout(st)
	}
}

// authenticating enters the SASL state.
func (cs *connectionStates) authenticating(id int32) {
	if st := cs.nodes[id]; st != nil {
		st.state = Authenticating
	}
}

// ready enters the ready state and resets the backoffs.
func (cs *connectionStates) ready(id int32) {
	if st := cs.nodes[id]; st != nil {
		st.state, st.authErr = Ready, nil
		st.failedAttempts = 0
		st.reconnectBackoff = cs.reconnect.backoff(0)
		cs.resetSetupTimeout(st)
	}
}

// answered records that the current connection of id answered a request
// other than ApiVersions and SASL: the broker takes this client, so the
// early closes no longer count.
func (cs *connectionStates) answered(id int32) {
	if st := cs.nodes[id]; st != nil {
		st.answered, st.earlyCloses = true, 0
	}
}

// authenticationFailed enters the final authentication failed state.
func (cs *connectionStates) authenticationFailed(id int32, now time.Time, err error) {
	if st := cs.nodes[id]; st != nil {
		st.state, st.conn, st.authErr, st.lastConnectAttempt = AuthenticationFailed, 0, err, now
		st.reauthAt, st.reauth = time.Time{}, false
		st.reconnectBackoff = cs.reconnect.backoff(st.failedAttempts)
		st.failedAttempts++
	}
}

// countEarlyClose records a connection failure of id: an early close
// (ErrClosedBeforeResponse) when early is set, another failure otherwise.
// It returns the number of early closes in a row.
func (cs *connectionStates) countEarlyClose(id int32, early bool) int {
	st := cs.nodes[id]
	if st == nil {
		return 0
	}
	if early {
		st.earlyCloses++
	} else {
		st.earlyCloses = 0
	}
	return st.earlyCloses
}

func (cs *connectionStates) resetSetupTimeout(st *nodeConnectionState) {
	st.failedSetups = 0
	st.setupTimeout = cs.setup.backoff(0)
}

func (cs *connectionStates) state(id int32) ConnectionState {
	if st := cs.nodes[id]; st != nil {
		return st.state
	}
	return Disconnected
}

// isReady reports whether id is ready, not throttled and not due for
// re-authentication.
func (cs *connectionStates) isReady(id int32, now time.Time) bool {
	st := cs.nodes[id]
	return st != nil && st.state == Ready && !st.throttleUntil.After(now) && (st.reauthAt.IsZero() || now.Before(st.reauthAt))
}

// throttle holds requests to id until the given time; the deadline never
// moves back.
func (cs *connectionStates) throttle(id int32, until time.Time) {
	if st := cs.nodes[id]; st != nil && until.After(st.throttleUntil) {
		st.throttleUntil = until
	}
}

func (cs *connectionStates) isConnecting(id int32) bool {
	st := cs.nodes[id]
	return st != nil && st.state == Connecting
}

// isPreparingConnection reports whether a connection to id is being set up
// (connecting, checking API versions or authenticating).
func (cs *connectionStates) isPreparingConnection(id int32) bool {
	switch cs.state(id) {
	case Connecting, CheckingAPIVersions, Authenticating:
		return true
	}
	return false
}

// isDisconnected reports whether the node has a state and is disconnected
// or failed authentication (Kafka's isDisconnected).
func (cs *connectionStates) isDisconnected(id int32) bool {
	st := cs.nodes[id]
	return st != nil && (st.state == Disconnected || st.state == AuthenticationFailed)
}

func (cs *connectionStates) authenticationError(id int32) error {
	if st := cs.nodes[id]; st != nil {
		return st.authErr
	}
	return nil
}

func (cs *connectionStates) lastConnectAttempt(id int32) time.Time {
	if st := cs.nodes[id]; st != nil {
		return st.lastConnectAttempt
	}
	return time.Time{}
}

func (cs *connectionStates) remove(id int32) { delete(cs.nodes, id) }

// nodesWithConnectionSetupTimeout appends to dst the nodes connecting for
// longer than their setup timeout.
func (cs *connectionStates) nodesWithConnectionSetupTimeout(dst []int32, now time.Time) []int32 {
	for id, st := range cs.nodes {
		if st.state == Connecting && now.Sub(st.lastConnectAttempt) >= st.setupTimeout {
			dst = append(dst, id)
		}
	}
	return dst
}

// nextSetupDeadline is the earliest connection setup deadline, and false
// when no node is connecting.
func (cs *connectionStates) nextSetupDeadline() (time.Time, bool) {
	var earliest time.Time
	found := false
	for _, st := range cs.nodes {
		if st.state != Connecting {
			continue
		}
		if d := st.lastConnectAttempt.Add(st.setupTimeout); !found || d.Before(earliest) {
			earliest, found = d, true
		}
	}
	return earliest, found
}
