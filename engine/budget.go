package engine

import (
	"github.com/stalkd/stalkd/engine/internal/memreturn"
	"github.com/stalkd/stalkd/engine/internal/ratelog"
	"sync/atomic"
	"time"
)

// Memory held for clients that do not keep up. gnet cannot stop reading a
// connection (it has no "pause reading" call, and its epoll registration is
// its own), so a client whose commands are held back - behind a pending
// reserve, or because it does not read its replies - has its input
// buffered in user space as it arrives. Three bounds keep that memory
// small, whatever the number of such clients:
//
//   - a slow reader's commands wait past Config.SlowReaderLimit bytes of
//     unread replies (so replies grow by at most one more);
//   - a client that keeps sending while its commands wait is closed past
//     Config.StalledInboundLimit (slow reader) or Config.InboundLimit
//     (blocked in reserve);
//   - across all connections, the bytes so held are counted, and a
//     connection that grows its share while the total is past
//     Config.HeldBudget is closed.
//
// gnet keeps released buffers in pools, and the Go runtime returns freed
// memory to the system slowly: after connections that held a lot are
// closed, the server collects and returns the memory (debug.FreeOSMemory),
// at most once per releaseEvery.

// Defaults of the held-memory bounds.
const (
	// DefaultHeldBudget is the default Config.HeldBudget.
	DefaultHeldBudget = 64 << 20
	// stalledInboundSlack is added to twice the maximum job size for the
	// default Config.StalledInboundLimit.
	stalledInboundSlack = 256 << 10
	// bigRelease is how much a closed connection must have held for its
	// memory to be handed back to the system.
	bigRelease = 1 << 20
	// releaseEvery bounds how often memory is handed back.
	releaseEvery = 5 * time.Second
)

// heldBytes is what this connection holds for a client that does not keep
// up: its buffered input while its commands wait, and its unread replies
// while it is stalled.
func (cn *conn) heldBytes() int64 {
	var n int
	if cn.waiting || cn.stall {
		n += cn.gc.InboundBuffered()
	}
	if cn.stall {
		n += cn.gc.OutboundBuffered() + cn.held.size()
	}
	return int64(n)
}

// account updates the server-wide count with this connection's share at the
// end of a serve, and reports whether the connection must be closed: its
// share grew while the total is over the budget.
func (cn *conn) account() (overBudget bool) {
	n := cn.heldBytes()
	delta := n - cn.heldShare
	if delta == 0 {
		return false
	}
	cn.heldShare = n
	cn.heldBig = cn.heldBig || n >= bigRelease
	total := cn.srv.held.Add(delta)
	if delta > 0 && total > cn.srv.cfg.HeldBudget {
		cn.srv.overBudget.Event(func() {
			cn.srv.log.Warn().Int64("held_bytes", total).Int64("budget_bytes", cn.srv.cfg.HeldBudget).
				Int64("closed", cn.srv.overBudget.Take()).
				Msg("closing connections that do not keep up: too much memory held for them")
		})
		return true
	}
	return false
}

// released runs when a connection closes: its share leaves the count, and
// if it held a lot, memory is handed back to the system soon.
func (cn *conn) released() {
	s := cn.srv
	if cn.heldShare != 0 {
		s.held.Add(-cn.heldShare)
		cn.heldShare = 0
	}
	if cn.heldBig {
		s.releaseSoon()
	}
}

// releaseSoon hands freed memory back to the system, off the event loops,
// at most once per releaseEvery. A request made while a hand-back is
// scheduled or just happened is not dropped: it is served when that
// hand-back's gap ends (slow readers rarely all leave within one second).
func (s *Server) releaseSoon() {
	s.releaseWanted.Store(true)
	if !s.releasing.CompareAndSwap(false, true) {
		return // the hand-back in progress looks again when its gap ends
	}
	s.after(time.Second, s.release)
}

func (s *Server) release() {
	s.releaseWanted.Store(false)
	memreturn.GiveBack() // gnet's buffer pools, like recycled jobs, need two collections
	s.releases.Add(1)
	s.after(releaseEvery, func() {
		s.releasing.Store(false)
		if s.releaseWanted.Load() {
			s.releaseSoon()
		}
	})
}

// heldState is the Server's side of the count.
type heldState struct {
	held          atomic.Int64 // bytes held for clients that do not keep up
	releasing     atomic.Bool  // a hand-back is scheduled or just happened
	releaseWanted atomic.Bool  // a connection that held a lot closed since the last hand-back began
	releases      atomic.Int64 // hand-backs done (for tests)
	overBudget    ratelog.Log
	// afterFunc runs f after d (time.AfterFunc when nil; tests drive it).
	afterFunc func(d time.Duration, f func())
}

func (h *heldState) after(d time.Duration, f func()) {
	if h.afterFunc != nil {
		h.afterFunc(d, f)
		return
	}
	time.AfterFunc(d, f)
}
