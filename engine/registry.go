package engine

import (
	"sync"
)

// registry knows the open connections, and which of them need a nudge from
// outside their event loop: stalled ones (a slow reader: re-examined by the
// nudger) and holding ones (replies waiting for a journal commit: woken on each
// commit). A nudge is gnet's Wake, which runs OnTraffic on the connection's
// own loop.
//
// Concurrency: mu guards the maps. Event loops add and remove connections;
// the nudger, the idle sweeper, the journal's goroutine and Stop read them.
// Wakes are issued after mu is released.
type registry struct {
	mu sync.Mutex
	// all lists the open connections, in no particular order: a slice
	// (8 bytes a connection) rather than a map (~37), with each conn's
	// slot kept in the conn.
	all     []*conn
	stalled map[*conn]struct{}
	holding map[*conn]struct{}

	// nudgeKick tells the nudger that a connection needs polling.
	nudgeKick chan struct{}
	// idleKick tells the idle sweeper that a connection may have a new,
	// earlier idle deadline (it opened, or its reserve ended).
	idleKick chan struct{}
}

func (r *registry) init() {
	r.stalled = make(map[*conn]struct{})
	r.holding = make(map[*conn]struct{})
	r.nudgeKick = make(chan struct{}, 1)
	r.idleKick = make(chan struct{}, 1)
}

// add registers a new connection and returns how many are open.
func (r *registry) add(cn *conn) int {
	r.mu.Lock()
	r.all = append(r.all, cn)
	n := len(r.all)
	cn.regSlot = int32(n)
	r.mu.Unlock()
	return n
}

// minAllShrink: the list of connections is not shrunk below this capacity.
const minAllShrink = 1024

// remove forgets a closed connection.
func (r *registry) remove(cn *conn) {
	r.mu.Lock()
	if i := int(cn.regSlot) - 1; i >= 0 {
		last := len(r.all) - 1
		moved := r.all[last]
		r.all[i], moved.regSlot = moved, int32(i+1)
		r.all[last] = nil
		r.all = r.all[:last]
		cn.regSlot = 0
		if c := cap(r.all); c > minAllShrink && len(r.all) < c/4 {
			r.all = append(make([]*conn, 0, c/2), r.all...) // give a burst back
		}
	}
	delete(r.stalled, cn)
	delete(r.holding, cn)
	r.mu.Unlock()
}

// count returns how many connections are open.
func (r *registry) count() int {
	r.mu.Lock()
	n := len(r.all)
	r.mu.Unlock()
	return n
}

// setStalled adds cn to, or removes it from, the stalled set.
func (r *registry) setStalled(cn *conn, on bool) { r.set(r.stalled, cn, on) }

// setHolding adds cn to, or removes it from, the holding set.
func (r *registry) setHolding(cn *conn, on bool) { r.set(r.holding, cn, on) }

func (r *registry) set(m map[*conn]struct{}, cn *conn, on bool) {
	r.mu.Lock()
	if on {
		m[cn] = struct{}{}
	} else {
		delete(m, cn)
	}
	first := on && len(m) == 1 && len(r.stalled) > 0
	r.mu.Unlock()
	if first {
		kick(r.nudgeKick)
	}
}

// needsNudge reports whether some connection must be polled.
func (r *registry) needsNudge() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.stalled) > 0
}

// wakeStalled wakes every stalled connection. Called from the ticker.
func (r *registry) wakeStalled() {
	r.mu.Lock()
	if len(r.stalled) == 0 {
		r.mu.Unlock()
		return
	}
	cs := collect(nil, r.stalled)
	r.mu.Unlock()
	wakeAll(cs)
}

// wakeHolding wakes every connection holding replies for a journal commit.
// Called on every commit (Server.committed).
func (r *registry) wakeHolding() {
	r.mu.Lock()
	if len(r.holding) == 0 {
		r.mu.Unlock()
		return
	}
	cs := collect(nil, r.holding)
	r.mu.Unlock()
	wakeAll(cs)
}

// wakeBusy wakes every connection that still has replies to write and
// returns how many there are (Stop waits for zero).
func (r *registry) wakeBusy() int {
	r.mu.Lock()
	var cs []transport
	for _, cn := range r.all {
		if cn.busy.Load() {
			cs = append(cs, cn.gc)
		}
	}
	r.mu.Unlock()
	wakeAll(cs)
	return len(cs)
}

func collect(dst []transport, m map[*conn]struct{}) []transport {
	for cn := range m {
		dst = append(dst, cn.gc)
	}
	return dst
}

func wakeAll(cs []transport) {
	for _, c := range cs {
		_ = c.Wake(nil)
	}
}
