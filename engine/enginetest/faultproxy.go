package enginetest

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FaultProxy is a TCP proxy on 127.0.0.1 that stands on one link: the
// process under test dials Addr instead of Target, and the test breaks the
// link on demand. Each direction has a Mode (Up: from the dialer to the
// target; Down: back), and the whole link can be Cut.
//
//   - Pass forwards bytes as they come.
//   - Delay(d) forwards each chunk d after it was read (latency, in order;
//     throughput is not limited).
//   - Drop reads the bytes and discards them: the direction is silent, the
//     connection stays open, the sender's writes succeed (a blackhole in
//     one direction). A connection that lost bytes has a hole in its stream,
//     so it is closed as soon as that direction stops dropping: never is a
//     stream with a hole delivered.
//   - Cut closes every connection and refuses new ones (accepted and closed
//     at once) until Heal.
//
// A new Mode applies to the bytes read from then on, on every connection.
// Loopback only. Concurrency: every method is safe for concurrent use; the
// proxy runs two goroutines per connection and direction, and one that
// accepts, all ended by Close (registered with t.Cleanup).
type FaultProxy struct {
	target string
	ln     net.Listener
	wg     sync.WaitGroup

	mu     sync.Mutex
	modes  [2]Mode
	cut    bool
	closed bool
	conns  map[*proxyConn]struct{}

	accepted, refused atomic.Int64
	passed, dropped   [2]atomic.Int64 // bytes, by Direction
}

// Direction is one way through a link.
type Direction int

const (
	Up   Direction = iota // from the dialer to the target
	Down                  // from the target back to the dialer
)

// Mode is what a direction does with the bytes read; the zero Mode is Pass.
type Mode struct {
	drop  bool
	delay time.Duration
}

// Pass forwards; Drop discards (see FaultProxy).
var (
	Pass = Mode{}
	Drop = Mode{drop: true}
)

// Delay forwards each chunk d after it was read.
func Delay(d time.Duration) Mode { return Mode{delay: d} }

// NewFaultProxy listens on 127.0.0.1:0 for connections to forward to
// target; every direction passes. It is closed when the test ends.
func NewFaultProxy(t testing.TB, target string) *FaultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &FaultProxy{target: target, ln: ln, conns: map[*proxyConn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// Addr is the address to dial instead of Target.
func (p *FaultProxy) Addr() string { return p.ln.Addr().String() }

// Target is where the proxy forwards.
func (p *FaultProxy) Target() string { return p.target }

// Set sets direction d's mode. Leaving Drop closes the connections that
// lost bytes in that direction.
func (p *FaultProxy) Set(d Direction, m Mode) {
	p.mu.Lock()
	p.modes[d] = m
	var holed []*proxyConn
	if !m.drop {
		for c := range p.conns {
			if c.lost[d].Load() {
				holed = append(holed, c)
			}
		}
	}
	p.mu.Unlock()
	for _, c := range holed {
		c.close()
	}
}

// Cut closes every connection and refuses new ones until Heal.
func (p *FaultProxy) Cut() {
	p.mu.Lock()
	p.cut = true
	conns := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// Heal undoes Cut and sets both directions to Pass.
func (p *FaultProxy) Heal() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
	p.Set(Up, Pass)
	p.Set(Down, Pass)
}

// FaultStats counts what went through a proxy since it started.
type FaultStats struct {
	Accepted, Refused int64    // connections forwarded; refused while cut
	Passed, Dropped   [2]int64 // bytes, by Direction
}

// Stats returns the counts so far.
func (p *FaultProxy) Stats() FaultStats {
	var s FaultStats
	s.Accepted, s.Refused = p.accepted.Load(), p.refused.Load()
	for d := range 2 {
		s.Passed[d], s.Dropped[d] = p.passed[d].Load(), p.dropped[d].Load()
	}
	return s
}

// Close stops accepting, closes every connection and waits for the
// proxy's goroutines. Idempotent.
func (p *FaultProxy) Close() {
	p.mu.Lock()
	p.closed = true
	conns := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	_ = p.ln.Close()
	for _, c := range conns {
		c.close()
	}
	p.wg.Wait()
}

// mode returns direction d's mode, and whether the link is cut.
func (p *FaultProxy) mode(d Direction) (Mode, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.modes[d], p.cut || p.closed
}

// accept runs until the listener is closed.
func (p *FaultProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		refuse := p.cut || p.closed
		if !refuse {
			p.wg.Add(1)
		}
		p.mu.Unlock()
		if refuse {
			p.refused.Add(1)
			_ = c.Close()
			continue
		}
		go p.connect(c)
	}
}
