package enginetest

import (
	"encoding/json"
	"testing"
	"time"
)

// What a Member's log says, waited for.

// WaitField waits until f returns a non-empty value (f reads the
// member's log lines, under its lock), or fails the test after 30 s.
func (p *Member) WaitField(t testing.TB, what string, f func(logs []string) string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		v := f(p.logs)
		p.mu.Unlock()
		if v != "" {
			return v
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: no %s within 30s", p.ID, what)
	return ""
}

// waitAddr waits for an address the log reports once that listener is up.
func (p *Member) waitAddr(t testing.TB, what string, field *string) string {
	t.Helper()
	return p.WaitField(t, what, func([]string) string { return *field })
}

// TLSAddr waits for the TLS client port's address (--tls).
func (p *Member) TLSAddr(t testing.TB) string { return p.waitAddr(t, "TLS address", &p.tlsAddr) }

// AdminURL waits for the admin listener (--admin) and returns its base URL.
func (p *Member) AdminURL(t testing.TB) string {
	return "http://" + p.waitAddr(t, "admin address", &p.adminAddr)
}

// NodePort waits for the leader engine's node port (the latest engine
// "listening" line's TLS address: node TLS serves it inside TLS).
func (p *Member) NodePort(t testing.TB) string {
	return p.WaitField(t, "node port", func(logs []string) string {
		for i := len(logs) - 1; i >= 0; i-- {
			var l struct {
				Message, Component string
				TLSAddr            string `json:"tls_addr"`
			}
			if json.Unmarshal([]byte(logs[i]), &l) == nil && l.Component == "engine" && l.Message == "listening" {
				return l.TLSAddr
			}
		}
		return ""
	})
}

// Logged reports whether this run logged a line containing s.
func (p *Member) Logged(s string) bool { return p.CountLogged(s) > 0 }

// CountLogged counts this run's lines containing s (of the last 200 to 300).
func (p *Member) CountLogged(s string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return countContaining(p.logs, s)
}

// WaitLeader returns the index of the live member that last said it leads
// with the highest term, waiting up to 60 s for one.
func WaitLeader(t testing.TB, ms []*Member) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		best, term := -1, 0.0
		for i, p := range ms {
			if lt := p.Term(); lt > term {
				best, term = i, lt
			}
		}
		if best >= 0 {
			return best
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no leader within 60s")
	return -1
}
