package saslfront

import (
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// handshake answers a SaslHandshake: it starts a first authentication, or
// a re-authentication of an authenticated connection whose session has a
// lifetime.
func (c *conn) handshake(h header) bool {
	req := h.req.(*kmsg.SASLHandshakeRequest)
	resp := kmsg.NewPtrSASLHandshakeResponse()
	resp.SupportedMechanisms = c.f.mechanismNames()
	reauth := false
	switch c.state {
	case stateAuthenticating:
		c.violation("SaslHandshake in the middle of a SASL exchange")
		return false
	case stateAuthenticated:
		switch {
		case c.sessionEnd.IsZero():
			resp.ErrorCode = kerr.IllegalSaslState.Code
			return c.answer(responseFrame(h, resp), true)
		case c.expired():
			c.expire()
			return false
		case c.owed.Load() > 0:
			c.violation(fmt.Sprintf("re-authentication started with %d answers still owed to the client", c.owed.Load()))
			return false
		case h.version == 0:
			resp.ErrorCode = kerr.IllegalSaslState.Code // KIP-368 needs SaslAuthenticate
			return c.answer(responseFrame(h, resp), true)
		case req.Mechanism != c.mechName:
			resp.ErrorCode = kerr.IllegalSaslState.Code
			c.update(func(s *ConnStats) {
				s.LastError = fmt.Sprintf("re-authentication changes the mechanism from %s to %s", c.mechName, req.Mechanism)
			})
			return c.answer(responseFrame(h, resp), true)
		}
		reauth = true
	}
	m, ok := c.f.mechanism(req.Mechanism)
	if !ok {
		resp.ErrorCode = kerr.UnsupportedSaslMechanism.Code
		return c.answer(responseFrame(h, resp), true)
	}
	c.state, c.mechName, c.reauth = stateAuthenticating, req.Mechanism, reauth
	c.raw = h.version == 0
	c.ex = m.Start(ConnInfo{ID: c.id, Local: c.client.LocalAddr(), Remote: c.client.RemoteAddr(), Reauthentication: reauth, Now: c.f.cfg.Now()})
	c.update(func(s *ConnStats) { s.Mechanism = req.Mechanism })
	return c.answer(responseFrame(h, resp), false)
}

// authenticate answers a SaslAuthenticate with the exchange's next step.
func (c *conn) authenticate(h header) bool {
	req := h.req.(*kmsg.SASLAuthenticateRequest)
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	if c.state != stateAuthenticating {
		resp.ErrorCode = kerr.IllegalSaslState.Code
		msg := "SaslAuthenticate without a SaslHandshake"
		resp.ErrorMessage = &msg
		return c.answer(responseFrame(h, resp), true)
	}
	out, done, err := c.ex.Step(req.SASLAuthBytes)
	if err == nil && done {
		err = c.complete()
	}
	if err != nil {
		c.fail(err)
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		msg := err.Error()
		resp.ErrorMessage = &msg
		return c.answer(responseFrame(h, resp), true)
	}
	resp.SASLAuthBytes = out
	if done && !c.sessionEnd.IsZero() {
		resp.SessionLifetimeMillis = max(c.sessionEnd.Sub(c.f.cfg.Now()).Milliseconds(), 1)
	}
	return c.answer(responseFrame(h, resp), false)
}

// handleRaw handles a client message of an exchange framed raw (after a
// v0 handshake); a failure closes the connection, as Kafka does.
func (c *conn) handleRaw(frame []byte) bool {
	out, done, err := c.ex.Step(frame)
	if err == nil && done {
		err = c.complete()
		c.raw = false
	}
	if err != nil {
		c.fail(err)
		c.close()
		return false
	}
	return c.answer(sizePrefixed(out), false)
}

// complete ends a successful exchange: the principal must not change on
// re-authentication, and the session's end is the session lifetime or
// the credential's expiry, whichever comes first.
func (c *conn) complete() error {
	principal := ""
	if p, ok := c.ex.(Principal); ok {
		principal = p.Principal()
	}
	if c.reauth && principal != c.principal {
		return fmt.Errorf("cannot change principals during re-authentication from %s to %s", c.principal, principal)
	}
	now := c.f.cfg.Now()
	end := time.Time{}
	if c.f.cfg.SessionLifetime > 0 {
		end = now.Add(c.f.cfg.SessionLifetime)
	}
	if e, ok := c.ex.(Expirer); ok && !e.Expiry().IsZero() && (end.IsZero() || e.Expiry().Before(end)) {
		end = e.Expiry()
	}
	if c.raw {
		end = time.Time{} // no session lifetime without SaslAuthenticate
	}
	c.state, c.principal, c.sessionEnd, c.ex = stateAuthenticated, principal, end, nil
	reauth := c.reauth
	c.update(func(s *ConnStats) {
		s.Principal = principal
		if reauth {
			s.Reauthentications++
		} else {
			s.Authentications++
		}
	})
	return nil
}

// fail records a failed exchange.
func (c *conn) fail(err error) {
	c.state, c.ex = stateNew, nil
	c.update(func(s *ConnStats) {
		s.Failures++
		s.LastError = err.Error()
	})
}
