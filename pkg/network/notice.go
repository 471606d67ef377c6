package network

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// NoticeKind says what a Notice is about.
type NoticeKind int8

// The notice kinds.
const (
	// NoticeBootstrapFailure: a bootstrap address failed, before the
	// cluster answered once. Each address gets one, at its first failure,
	// and one more if a later failure is final, but an authentication
	// failure, which ends the bootstrap, is told by the BootstrapError.
	NoticeBootstrapFailure NoticeKind = iota + 1
	// NoticeBrokerDown: after the cluster was reached, a broker was lost
	// while the Client needed it (requests in flight, or a connection
	// attempt failed). One per outage: the reconnect attempts that follow
	// are silent until the broker is back. A broker that refused to
	// authenticate the Client (a re-authentication included) gets none:
	// AuthenticationError tells it.
	NoticeBrokerDown
	// NoticeBrokerUp: a broker that was down is ready again.
	NoticeBrokerUp
)

// String is the kind's name.
func (k NoticeKind) String() string {
	switch k {
	case NoticeBootstrapFailure:
		return "bootstrap failure"
	case NoticeBrokerDown:
		return "broker down"
	case NoticeBrokerUp:
		return "broker up"
	}
	return fmt.Sprintf("NoticeKind(%d)", int8(k))
}

// Notice tells the Client's user what happened to a connection, for a
// person waiting on the other side (the command line prints it on stderr).
type Notice struct {
	Kind NoticeKind
	// Node is the broker (a bootstrap address has a negative id).
	Node Node
	// At is when it happened.
	At time.Time
	// Since is when the outage began (NoticeBrokerDown: At;
	// NoticeBrokerUp: when the broker went down).
	Since time.Time
	// Err is the failure, naming the broker (nil for NoticeBrokerUp).
	Err error
	// Final is set when the broker will not be retried.
	Final bool
	// Deadline is when the Client gives up bootstrapping
	// (NoticeBootstrapFailure; zero when it has no bootstrap timeout).
	Deadline time.Time
}

// String describes the notice in one line.
func (n Notice) String() string {
	switch n.Kind {
	case NoticeBootstrapFailure:
		switch {
		case n.Final:
			return fmt.Sprintf("%v; not retrying this address", n.Err)
		case !n.Deadline.IsZero():
			return fmt.Sprintf("%v; retrying for up to %v", n.Err, n.Deadline.Sub(n.At).Round(100*time.Millisecond))
		}
		return fmt.Sprintf("%v; retrying", n.Err)
	case NoticeBrokerDown:
		// The error names the broker too: once is enough.
		cause := strings.TrimPrefix(fmt.Sprint(n.Err), n.Node.String()+": ")
		if n.Final {
			return fmt.Sprintf("lost %s: %s; not retrying it", n.Node, cause)
		}
		return fmt.Sprintf("lost %s at %s: %s; retrying until it is back or the records time out",
			n.Node, n.Since.Format(time.TimeOnly), cause)
	case NoticeBrokerUp:
		return fmt.Sprintf("%s is back after %v", n.Node, n.At.Sub(n.Since).Round(time.Millisecond))
	}
	return n.Kind.String()
}

// notify hands n to Config.Notify, if set.
func (c *Client) notify(n Notice) {
	if c.cfg.Notify != nil {
		c.cfg.Notify(n)
	}
}

// noticeConnectionLost tells about a lost connection: during the
// bootstrap, the first failure of each address (and a final one); after
// it, the start of an outage of a broker the Client needed (hadWork),
// once.
//
// An authentication failure gets no notice: the caller is told by an
// error, once: during the bootstrap by the BootstrapError it ends at once,
// after it by AuthenticationError, which stops the producer. Every broker
// takes the same credentials, so when they refuse them (a wrong password;
// re-authentications refused once the password changed) a notice per
// broker would tell the same cause again, once per broker.
func (c *Client) noticeConnectionLost(st *nodeConnectionState, err error, final, hadWork bool, now time.Time) {
	if final && errors.Is(err, ErrAuthentication) {
		return
	}
	if !c.Reached() {
		if c.boot.err != nil {
			return // the bootstrap ended: its error tells
		}
		if c.boot.notified == nil {
			c.boot.notified = make(map[string]bool)
		}
		addr := st.node.Addr()
		if c.boot.notified[addr] && !final {
			return
		}
		c.boot.notified[addr] = true
		deadline, _ := c.bootstrapDeadline()
		c.notify(Notice{Kind: NoticeBootstrapFailure, Node: st.node, At: now, Err: err, Final: final, Deadline: deadline})
		return
	}
	if !st.downSince.IsZero() && !final {
		return
	}
	if !hadWork && !final {
		return // an idle connection closed (the broker's idle timeout): no outage
	}
	if st.downSince.IsZero() {
		st.downSince = now
	}
	c.notify(Notice{Kind: NoticeBrokerDown, Node: st.node, At: now, Since: st.downSince, Err: err, Final: final})
}

// noticeReady ends the outage of a broker that is ready again.
func (c *Client) noticeReady(st *nodeConnectionState, now time.Time) {
	if st.downSince.IsZero() {
		return
	}
	since := st.downSince
	st.downSince = time.Time{}
	c.notify(Notice{Kind: NoticeBrokerUp, Node: st.node, At: now, Since: since})
}
