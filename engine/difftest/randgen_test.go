package difftest

import (
	"math/rand"
	"strconv"
	"strings"
)

// The generator of random conversations (TestDiffRandom). It is seeded, and
// it learns from the reference's replies (never from stalkd's) which
// connections wait in a reserve, which tubes they use and which job ids
// exist, so that one seed always plays the same conversation. It avoids
// what depends on wall-clock time: delays are 0 or large, TTRs are large
// except for jobs in the tube "tiny", which no connection ever watches or
// reserves, pauses are large, and a timeout is 0, large or forever.

// rstep is one random step: bytes written on one connection (in parts, each
// read by the server before the next leaves), or a hang-up.
type rstep struct {
	conn     string
	parts    []string
	hangup   bool
	shut     bool // half-close after the writes: the server answers, then closes
	blocking bool // one reserve command alone: no reply means the connection waits
	tiny     bool // a put of a small-TTR job into the tube "tiny"
}

// sent is all the bytes the step writes.
func (s rstep) sent() string { return strings.Join(s.parts, "") }

// connNames are the connections a conversation may use.
var connNames = []string{"a", "b", "c", "d"}

// gen is the generator's state. Used by one goroutine.
type gen struct {
	r       *rand.Rand
	maxJob  int
	nconns  int                 // how many of connNames this conversation uses
	open    map[string]bool     // connections the client has open
	waiting map[string]bool     // connections blocked in a reserve (reference's view)
	used    map[string]string   // each open connection's used tube
	dirty   map[string]bool     // connections whose lines may be out of step (gen.put)
	ids     []uint64            // ids the reference handed out, tiny jobs excluded
	held    map[string][]uint64 // ids each connection was handed by a reserve (maybe no longer its own)
	tinyIDs map[uint64]bool
	lastID  uint64
}

func newGen(seed int64, maxJob int) *gen {
	r := rand.New(rand.NewSource(seed))
	return &gen{r: r, maxJob: maxJob, nconns: 1 + r.Intn(len(connNames)),
		open: map[string]bool{}, waiting: map[string]bool{}, used: map[string]string{}, dirty: map[string]bool{}, held: map[string][]uint64{}, tinyIDs: map[uint64]bool{}}
}

// pick returns one of xs.
func pick[T any](g *gen, xs ...T) T { return xs[g.r.Intn(len(xs))] }

// chance is true with probability pct/100.
func (g *gen) chance(pct int) bool { return g.r.Intn(100) < pct }

// next returns the next step.
func (g *gen) next() rstep {
	conn := connNames[g.r.Intn(g.nconns)]
	if g.waiting[conn] {
		if g.chance(10) {
			return rstep{conn: conn, shut: true} // 1.12 answers TIMED_OUT, then closes
		}
		if g.chance(25) {
			return rstep{conn: conn, hangup: true}
		}
		for _, c := range connNames[:g.nconns] {
			if !g.waiting[c] {
				conn = c
				break
			}
		}
		if g.waiting[conn] { // everyone waits
			return rstep{conn: conn, hangup: true}
		}
	}
	switch n := g.r.Intn(100); {
	case n < 3 && g.open[conn]:
		return rstep{conn: conn, hangup: true}
	case n < 12:
		return rstep{conn: conn, parts: []string{g.reserveCmd(conn)}, blocking: true}
	case n < 16:
		return rstep{conn: conn, parts: []string{g.oddLine(conn)}}
	case n < 24 && g.used[conn] == "tiny":
		return rstep{conn: conn, parts: []string{g.put(conn, true)}, tiny: true}
	}
	var b strings.Builder
	quit := ""
	for range 1 + g.r.Intn(3) {
		cmd := g.command(conn)
		if strings.HasPrefix(cmd, "quit") {
			// quit goes last: bytes the server has not read when it closes
			// make its kernel reset the connection, and the client's
			// socket, which the barrier reads, vanishes.
			quit = cmd
			continue
		}
		b.WriteString(cmd)
	}
	b.WriteString(quit)
	return rstep{conn: conn, parts: g.split(b.String()), shut: quit == "" && g.chance(3)}
}

// split cuts s into one to three parts at random places.
func (g *gen) split(s string) []string {
	if len(s) < 2 || g.chance(70) {
		return []string{s}
	}
	var parts []string
	for range 1 + g.r.Intn(2) {
		if len(s) < 2 {
			break
		}
		i := 1 + g.r.Intn(len(s)-1)
		parts = append(parts, s[:i])
		s = s[i:]
	}
	return append(parts, s)
}

// observe learns from the reference's replies to st, by connection.
func (g *gen) observe(st rstep, out map[string][]reply) {
	if st.hangup || st.shut {
		g.closed(st.conn)
	} else {
		g.open[st.conn] = true
		if st.blocking && len(out[st.conn]) == 0 {
			g.waiting[st.conn] = true
		}
	}
	for conn, rs := range out {
		if len(rs) > 0 {
			g.waiting[conn] = false
		}
		for _, r := range rs {
			if r.Note != "" { // the end of the stream, or a stream not usable after it
				g.closed(conn)
				continue
			}
			f := strings.Fields(r.Head)
			switch {
			case len(f) == 2 && f[0] == "USING":
				g.used[conn] = f[1]
			case len(f) >= 2 && (f[0] == "INSERTED" || f[0] == "BURIED" || f[0] == "RESERVED" || f[0] == "FOUND"):
				id, err := strconv.ParseUint(f[1], 10, 64)
				if err != nil {
					continue
				}
				g.lastID = max(g.lastID, id)
				if f[0] == "RESERVED" {
					g.held[conn] = append(g.held[conn], id)
				}
				if st.tiny && f[0] == "INSERTED" {
					g.tinyIDs[id] = true
				} else if !g.tinyIDs[id] {
					g.ids = append(g.ids, id)
				}
			}
		}
	}
}

// closed forgets a connection's state: the next step on it dials anew.
func (g *gen) closed(conn string) {
	delete(g.open, conn)
	delete(g.waiting, conn)
	delete(g.used, conn)
	delete(g.dirty, conn)
	delete(g.held, conn)
}
