package jobsmodel

import (
	"regexp"
	"slices"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

const second = int64(time.Second)

// Model is the naive reference queue. Sessions are named by ints handed out
// by NewSession. Not safe for concurrent use.
type Model struct {
	now      int64
	nextID   uint64
	seq      uint64 // orders reservations and burials
	serial   uint64 // tube creation order
	nextSess int

	jobs     map[uint64]*mjob
	live     []uint64 // the keys of jobs, in increasing order
	tubes    []*mtube // listing order
	sessions map[int]*msess

	cmds            [jobs.MaxCommands]uint64
	timeouts, total uint64
	connections     uint64
	draining        bool
	policies        map[string]jobs.Policy
	counters        map[string]*jobs.PolicyCounts // by policy: gone with it, not with the tube
}

type mjob struct {
	id       uint64
	tube     string
	body     string
	state    jobs.State
	pri      uint32
	delay    int64
	ttr      int64
	deadline int64 // reserved: TTR end; delayed: when it becomes ready
	created  int64
	reserver int    // session, while reserved
	order    uint64 // when it was reserved or buried (seq)

	reserves, timeouts, releases, buries, kicks uint32
}

type mtube struct {
	name      string
	serial    uint64
	pause     int64
	unpauseAt int64

	totalJobs, deletes, pauses uint64
	waiters                    []int // the reference's "ms" set of waiting sessions
	last                       int   // its round-robin cursor
}

// Session wait states.
const (
	idle = iota
	waiting
	delivered // an outcome waits for Take
)

type msess struct {
	use      string
	watch    []string
	producer bool
	worker   bool

	state     int
	waitTubes []string
	timerAt   int64 // when the wait's timer fires; 0: no timer
	timerSoon bool  // the timer is the DEADLINE_SOON margin
	outcome   Reply
	wakes     int
}

// Reply is what an operation answers: a job (ID and Body), a number (N),
// an error, or a combination.
type Reply struct {
	ID   uint64
	Body string
	N    int
	Err  error
}

// New returns a model whose clock reads now, with the tube "default".
func New(now int64) *Model {
	m := &Model{now: now, nextID: 1, jobs: map[uint64]*mjob{}, sessions: map[int]*msess{}}
	m.acquire("default")
	return m
}

// Now returns the model's time.
func (m *Model) Now() int64 { return m.now }

// LiveIDs returns the ids of every job, in increasing order.
func (m *Model) LiveIDs() []uint64 { return slices.Clone(m.live) }

// MaxID returns the highest id handed out so far.
func (m *Model) MaxID() uint64 { return m.nextID - 1 }

// Waiting reports whether session s is in a reserve whose outcome it has
// not taken yet.
func (m *Model) Waiting(s int) bool { return m.sessions[s].state != idle }

// Wakes returns how many times session s has been woken.
func (m *Model) Wakes(s int) int { return m.sessions[s].wakes }

var tubeName = regexp.MustCompile(`^[A-Za-z0-9+/;.$_()][A-Za-z0-9+/;.$_()-]*$`)

func validName(name string) bool { return len(name) <= jobs.MaxTubeName && tubeName.MatchString(name) }

func (m *Model) tube(name string) *mtube {
	for _, t := range m.tubes {
		if t.name == name {
			return t
		}
	}
	return nil
}

// acquire returns the tube called name, creating it at the end of the list.
func (m *Model) acquire(name string) *mtube {
	if t := m.tube(name); t != nil {
		return t
	}
	m.serial++
	t := &mtube{name: name, serial: m.serial}
	m.tubes = append(m.tubes, t)
	return t
}

// gc drops the tube called name if nothing refers to it any more: the last
// tube of the list moves into its place.
func (m *Model) gc(name string) {
	if name == "default" || m.referenced(name) {
		return
	}
	for i, t := range m.tubes {
		if t.name == name {
			last := len(m.tubes) - 1
			m.tubes[i] = m.tubes[last]
			m.tubes = m.tubes[:last]
			return
		}
	}
}

func (m *Model) referenced(name string) bool {
	for _, s := range m.sessions {
		if s.use == name || slices.Contains(s.watch, name) {
			return true
		}
	}
	for _, j := range m.jobs {
		if j.tube == name {
			return true
		}
	}
	return false
}

// removeAt removes item i of a "ms" set the reference's way: the last item
// moves into the hole.
func removeAt[T any](items []T, i int) []T {
	last := len(items) - 1
	items[i] = items[last]
	return items[:last]
}

// take serves the tube's waiters round-robin from a moving cursor.
func (t *mtube) take() int {
	t.last %= len(t.waiters)
	s := t.waiters[t.last]
	t.waiters = removeAt(t.waiters, t.last)
	t.last++
	return s
}

func (t *mtube) removeWaiter(s int) {
	if i := slices.Index(t.waiters, s); i >= 0 {
		t.waiters = removeAt(t.waiters, i)
	}
}

func (m *Model) paused(t *mtube) bool { return t.pause > 0 && m.now < t.unpauseAt }

// jobsIn returns the jobs of tube (every tube if ""), in state st, sorted by
// less.
func (m *Model) jobsIn(tube string, st jobs.State, less func(a, b *mjob) int) []*mjob {
	var js []*mjob
	for _, j := range m.jobs {
		if j.state == st && (tube == "" || j.tube == tube) {
			js = append(js, j)
		}
	}
	slices.SortFunc(js, less)
	return js
}

func byPri(a, b *mjob) int      { return cmpPair(int64(a.pri), int64(b.pri), a.id, b.id) }
func byDeadline(a, b *mjob) int { return cmpPair(a.deadline, b.deadline, a.id, b.id) }
func byOrder(a, b *mjob) int    { return cmpPair(int64(a.order), int64(b.order), a.id, b.id) }

func cmpPair(a1, b1 int64, a2, b2 uint64) int {
	switch {
	case a1 != b1:
		if a1 < b1 {
			return -1
		}
		return 1
	case a2 < b2:
		return -1
	case a2 > b2:
		return 1
	}
	return 0
}
