package memreturn

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Memory return. The Go runtime keeps the heap a drained backlog used: it
// gives pages back to the operating system only slowly, and only after a
// collection that nothing triggers once the queue is idle. So a watcher
// polls what the queue's jobs hold and, when that falls far below its peak
// (a large drain), forces one collection that also returns the freed
// memory (debug.FreeOSMemory), at most once per memReturnGap. It costs one
// sum of striped counters per second while nothing happens.
const (
	memReturnEvery = time.Second
	// memReturnMin: a peak below this is not worth a forced collection.
	memReturnMin = 32 << 20
	// memReturnGap: at most one forced collection per gap.
	memReturnGap = 5 * time.Second
)

// memWatched holds the queues a watcher runs for: a queue opened with
// Open and then served runs one watcher, not two.
var memWatched sync.Map // *jobs.Queue -> struct{}

// Watch starts the watcher of jq unless one runs; it stops when stop
// is closed.
func Watch(jq *jobs.Queue, stop <-chan struct{}) {
	if _, dup := memWatched.LoadOrStore(jq, struct{}{}); dup {
		return
	}
	go func() {
		defer memWatched.Delete(jq)
		tk := time.NewTicker(memReturnEvery)
		defer tk.Stop()
		var m memReturn
		for {
			select {
			case <-stop:
				return
			case now := <-tk.C:
				if m.observe(jq.HeldBytes(), now) {
					GiveBack()
				}
			}
		}
	}()
}

// GiveBack returns the freed heap to the operating system. Deleted jobs
// and the buffers of closed connections wait in sync.Pools (package jobs
// recycles jobs; gnet pools buffers), which a collection only
// moves to a victim cache: the second collection, FreeOSMemory's, frees
// them, and only then are their pages returned.
func GiveBack() {
	runtime.GC()
	debug.FreeOSMemory()
}

// memReturn decides when to give memory back. Time is an input.
type memReturn struct {
	peak  int64     // the most held since the last return
	since int64     // held at the last return
	prev  int64     // held at the previous observation
	last  time.Time // the last return
}

// observe takes the bytes held at now and reports whether to return memory
// now: held fell below a quarter of a peak of at least memReturnMin, or
// below a quarter of what was left at the last return if that was still a
// few MiB (a drain still going on then gets a second return once it ends),
// and the last return is memReturnGap old - and only once the drain has
// settled (held moved by less than a 64th of the peak, or 1 MiB, since the
// previous observation): a forced collection in the middle of a drain
// would stall the workers draining, and return memory the next second
// would have freed anyway.
func (m *memReturn) observe(held int64, now time.Time) bool {
	m.peak = max(m.peak, held)
	settled := abs64(held-m.prev) <= max(m.peak/64, 1<<20)
	m.prev = held
	drained := m.peak >= memReturnMin && held <= m.peak/4
	rest := m.since >= memReturnMin/8 && held <= m.since/4
	if !(drained || rest) || !settled || now.Sub(m.last) < memReturnGap {
		return false
	}
	m.peak, m.since, m.last = held, held, now
	return true
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
