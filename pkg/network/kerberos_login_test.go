package network

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A ticket-granting ticket is kept until its refresh time (80% of its
// life); after it, sasl.kerberos.min.time.before.relogin spaces the
// logins, except for a ticket that would end before the next one is
// allowed.
func TestKeepTGT(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	tgt := func(life time.Duration) *kerberosTicket {
		return &kerberosTicket{start: start, end: start.Add(life)}
	}
	at := func(d time.Duration) time.Time { return start.Add(d) }
	tests := []struct {
		name string
		tgt  *kerberosTicket
		now  time.Time
		want bool
	}{
		{"no ticket", nil, at(0), false},
		{"10h ticket, before its refresh time", tgt(10 * time.Hour), at(7 * time.Hour), true},
		{"10h ticket, at 80%", tgt(10 * time.Hour), at(8 * time.Hour), false},
		{"2m ticket, at 80%, logged in 96s ago", tgt(2 * time.Minute), at(96 * time.Second), false},
		{"4s ticket, before 80%", tgt(4 * time.Second), at(3 * time.Second), true},
		{"4s ticket, at 80%: it would end before the next login is allowed", tgt(4 * time.Second), at(3200 * time.Millisecond), false},
		{"ended", tgt(4 * time.Second), at(4 * time.Second), false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, keepTGT(tt.tgt, start, tt.now, time.Minute), tt.name)
	}
	// A 10-minute ticket refreshed at 80%, logged in 30s ago (its previous
	// login): kept, the minute between logins is not over and it ends
	// after it.
	tenMin := &kerberosTicket{start: start, end: start.Add(10 * time.Minute)}
	assert.True(t, keepTGT(tenMin, at(8*time.Minute-30*time.Second), at(8*time.Minute), time.Minute))
}

// The background refresh wakes when keepTGT stops keeping the ticket:
// renewAt is the first such time, for short and long tickets, recent and
// old logins.
func TestRenewAtMatchesKeepTGT(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	for _, life := range []time.Duration{4 * time.Second, 50 * time.Second, 2 * time.Minute, 10 * time.Hour} {
		for _, loggedIn := range []time.Duration{0, time.Second, life / 2, life * 9 / 10} {
			tgt := &kerberosTicket{start: start, end: start.Add(life)}
			last := start.Add(loggedIn)
			at := renewAt(tgt, last, time.Minute)
			for step := time.Duration(0); step <= life; step += life / 400 {
				now := start.Add(step)
				if keepTGT(tgt, last, now, time.Minute) != now.Before(at) {
					t.Fatalf("life %v, logged in at +%v: at +%v keepTGT says %v, renewAt is +%v", life, loggedIn, step,
						keepTGT(tgt, last, now, time.Minute), at.Sub(start))
				}
			}
		}
	}
	assert.True(t, renewAt(nil, start, time.Minute).IsZero(), "no ticket: nothing to renew")
}
