package robustness

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// fault is one kind of failure the runner injects while the traffic runs.
// inject returns when the fault is over (healed, restarted); what it
// returns is a broken promise of that fault (see wal/raft/README.md,
// "Robustness"), not a failure to inject.
type fault struct {
	name    string
	cluster bool // a fault of the cluster; otherwise of the single node
	inject  func(f *faultRun) error
}

// faultRun is one injection: the system, the seeded randomness, and notes
// for the report.
type faultRun struct {
	sys   *system
	rng   *rand.Rand
	notes []string
}

func (f *faultRun) note(format string, a ...any) {
	f.notes = append(f.notes, fmt.Sprintf(format, a...))
}

// pause sleeps between lo and hi.
func (f *faultRun) pause(lo, hi time.Duration) {
	time.Sleep(lo + time.Duration(f.rng.Int64N(int64(hi-lo)+1)))
}

// The faults, each once in the short pass.
var faults = []fault{
	// The single node (-b DIR -f 0).
	{name: "kill", inject: func(f *faultRun) error { return f.killRestart(0) }},
	{name: "pause", inject: func(f *faultRun) error { return f.stopCont(0, 1500*time.Millisecond) }},
	{name: "disk-stall", inject: (*faultRun).diskStall},
	{name: "fsync-error", inject: func(f *faultRun) error { return f.journalDies("wal.sync eio") }},
	{name: "enospc-job-log", inject: func(f *faultRun) error { return f.journalDies("wal.write enospc") }},
	{name: "kill-during-stall", inject: (*faultRun).killDuringStall},

	// Three nodes with node TLS.
	{name: "kill-leader", cluster: true, inject: func(f *faultRun) error { return f.killRestart(f.leader()) }},
	{name: "kill-follower", cluster: true, inject: func(f *faultRun) error { return f.killRestart(f.follower()) }},
	{name: "pause-leader", cluster: true, inject: func(f *faultRun) error { return f.stopCont(f.leader(), 2500*time.Millisecond) }},
	{name: "partition-leader", cluster: true, inject: func(f *faultRun) error { return f.partition(f.leader(), "cut") }},
	{name: "partition-follower", cluster: true, inject: func(f *faultRun) error { return f.partition(f.follower(), "cut") }},
	{name: "leader-cannot-send", cluster: true, inject: func(f *faultRun) error { return f.partition(f.leader(), "out") }},
	{name: "leader-cannot-hear", cluster: true, inject: func(f *faultRun) error { return f.partition(f.leader(), "in") }},
	{name: "slow-links", cluster: true, inject: func(f *faultRun) error { return f.partition(f.leader(), "slow") }},
	{name: "raft-disk-stall", cluster: true, inject: (*faultRun).raftStall},
	{name: "enospc-raft-log-leader", cluster: true, inject: func(f *faultRun) error { return f.raftNoSpace(f.leader()) }},
	{name: "enospc-raft-log-follower", cluster: true, inject: func(f *faultRun) error { return f.raftNoSpace(f.follower()) }},
	{name: "clock-step", cluster: true, inject: (*faultRun).clockStep},
	{name: "torn-raft-tail", cluster: true, inject: (*faultRun).tornTail},
	{name: "mix-partition-kill", cluster: true, inject: (*faultRun).mixPartitionKill},
	{name: "mix-stall-kill-leader", cluster: true, inject: (*faultRun).mixStallKill},
}

func (f *faultRun) leader() int {
	l, err := f.sys.waitLeader(30 * time.Second)
	if err != nil {
		return 0
	}
	return l
}

func (f *faultRun) follower() int { return (f.leader() + 1 + f.rng.IntN(2)) % 3 }

// killRestart SIGKILLs node i and starts it again on its directory.
func (f *faultRun) killRestart(i int) error {
	n := f.sys.nodes[i]
	n.kill()
	f.note("killed %s", n.id)
	f.pause(200*time.Millisecond, time.Second)
	return n.start()
}

// stopCont SIGSTOPs node i for about d (in a cluster: at least until
// another node leads), then SIGCONTs it.
func (f *faultRun) stopCont(i int, d time.Duration) error {
	n := f.sys.nodes[i]
	old := n.term()
	if err := n.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	f.note("stopped %s", n.id)
	start := time.Now()
	f.pause(d, d+time.Second)
	if old > 0 {
		for time.Since(start) < 30*time.Second {
			if l := f.sys.leader(); l >= 0 && l != i {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return n.signal(syscall.SIGCONT)
}

// partition breaks node i's raft links for a few seconds: cut, its bytes
// dropped (out) or the bytes to it dropped (in), or every byte late.
func (f *faultRun) partition(i int, how string) error {
	switch how {
	case "cut":
		f.sys.mesh.Isolate(i)
	case "out", "in":
		f.sys.mesh.Silence(i, how == "out")
	case "slow":
		f.sys.mesh.Slow(i, 400*time.Millisecond)
	}
	f.note("%s: links of %s", how, f.sys.nodes[i].id)
	f.pause(2*time.Second, 3*time.Second)
	f.sys.heal()
	return nil
}

// diskStall: every fsync of the job log takes 3 s longer, for a few
// seconds. Meanwhile the node must answer what needs no disk (stats,
// peeks, a reserve of a stored job) within a second, and /readyz must say
// why puts wait.
func (f *faultRun) diskStall() error {
	n := f.sys.nodes[0]
	// A job stored before the stall, for the reserve below.
	c, err := dial(n.clientAddr())
	if err != nil {
		return err
	}
	defer c.close()
	if _, _, err := c.do("use robustness-stall", nil, replyWithin); err != nil {
		return err
	}
	if r, _, err := c.do("put 0 0 60 6", []byte("stored"), replyWithin); err != nil || !strings.HasPrefix(r, "INSERTED") {
		return fmt.Errorf("put before the stall: %q %v", r, err)
	}
	if err := n.setFaults("wal.sync stall 5s"); err != nil {
		return err
	}
	f.note("fsyncs of %s stalled 5s each", n.id)
	defer n.setFaults()
	// A put to start an fsync that stalls; acked closes when it is answered.
	acked := make(chan struct{})
	go func() {
		defer close(acked)
		if p, err := dial(n.clientAddr()); err == nil {
			_, _, _ = p.do("use robustness-stall", nil, replyWithin)
			_, _, _ = p.do("put 0 0 60 4", []byte("slow"), replyWithin)
			p.close()
		}
	}()
	// No clock decides here (the machine may be loaded): /readyz must come
	// to name the stalled fsync, and the reads must all be answered before
	// the put that waits for that fsync.
	var broken []string
	code, reason := 0, ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if code, reason = readyz(n); code == http.StatusServiceUnavailable && strings.Contains(reason, "fsync") {
			break
		}
	}
	if code != http.StatusServiceUnavailable || !strings.Contains(reason, "fsync") {
		broken = append(broken, fmt.Sprintf("/readyz during the disk stall: %d %q (want 503 naming the fsync)", code, reason))
	} else {
		f.note("/readyz: %s", reason)
	}
	for _, cmd := range []string{"stats", "peek-ready", "list-tubes", "watch robustness-stall", "reserve-with-timeout 0"} {
		r, _, err := c.do(cmd, nil, replyWithin)
		switch {
		case err != nil:
			broken = append(broken, fmt.Sprintf("%s during the disk stall: %v", cmd, err))
		case cmd == "reserve-with-timeout 0" && !strings.HasPrefix(r, "RESERVED"):
			broken = append(broken, fmt.Sprintf("a reserve of a stored job during the disk stall: %q", r))
		}
	}
	select {
	case <-acked:
		broken = append(broken, "the reads during the disk stall were answered only after the put that waited for the disk (they need none)")
	default:
	}
	f.pause(time.Second, 2*time.Second)
	if err := n.setFaults(); err != nil {
		return err
	}
	if len(broken) > 0 {
		return fmt.Errorf("%s", strings.Join(broken, "; "))
	}
	return nil
}

// journalDies: fsyncs fail (EIO) or writes find the disk full (ENOSPC)
// for a few seconds. Writes must stop with a clear reply (OUT_OF_MEMORY
// for a put, INTERNAL_ERROR otherwise: words 1.12 sends) and a clear log
// line, never a silent loss; once the fault is gone a restart serves again
// (the checker then finds every acknowledged change).
func (f *faultRun) journalDies(point string) error {
	n := f.sys.nodes[0]
	if err := n.setFaults(point); err != nil {
		return err
	}
	f.note("%s on %s", point, n.id)
	var broken []string
	// A put while the fault holds: refused, with a word put may get.
	c, err := dial(n.clientAddr())
	if err == nil {
		r, _, err := c.do("put 0 0 60 5", []byte("probe"), replyWithin)
		c.close()
		if err != nil || (r != "OUT_OF_MEMORY" && r != "INTERNAL_ERROR") {
			broken = append(broken, fmt.Sprintf("a put while %s: %q %v (want OUT_OF_MEMORY)", point, r, err))
		}
	}
	f.pause(time.Second, 2*time.Second)
	dead := n.seen("journal failed: changes after the last acknowledged one are refused until a restart") > 0
	low := n.seen("disk full: released the space reserve; puts get OUT_OF_MEMORY, deletes are still logged, until space is freed") > 0
	code, reason := readyz(n)
	f.note("after %s: journal failed %v, low space %v, /readyz %d %q", point, dead, low, code, reason)
	if !dead && !low {
		broken = append(broken, "no log line says the journal failed or the disk is full")
	}
	if dead && code != http.StatusServiceUnavailable {
		broken = append(broken, fmt.Sprintf("/readyz with a dead journal: %d %q", code, reason))
	}
	if err := n.setFaults(); err != nil {
		return err
	}
	if dead {
		n.kill()
		if err := n.start(); err != nil {
			return err
		}
		f.note("restarted %s", n.id)
	}
	if len(broken) > 0 {
		return fmt.Errorf("%s", strings.Join(broken, "; "))
	}
	return nil
}

// killDuringStall: fsyncs stall, then the node is killed in the middle.
func (f *faultRun) killDuringStall() error {
	n := f.sys.nodes[0]
	if err := n.setFaults("wal.sync stall 2s"); err != nil {
		return err
	}
	f.pause(500*time.Millisecond, 2500*time.Millisecond)
	if err := n.setFaults(); err != nil {
		return err
	}
	return f.killRestart(0)
}

// raftStall: every store of raft entries on the leader takes 2 s longer,
// for a few seconds.
func (f *faultRun) raftStall() error {
	n := f.sys.nodes[f.leader()]
	if err := n.setFaults("raft.store stall 2s"); err != nil {
		return err
	}
	f.note("raft stores of %s stalled 2s each", n.id)
	f.pause(2*time.Second, 4*time.Second)
	return n.setFaults()
}

// raftNoSpace: stores of raft entries on node i fail with ENOSPC for a
// few seconds. A leader must step down (what it could not store is never
// acknowledged), a follower falls behind and catches up.
func (f *faultRun) raftNoSpace(i int) error {
	n := f.sys.nodes[i]
	wasLeader := n.term() > 0
	if err := n.setFaults("raft.store enospc"); err != nil {
		return err
	}
	f.note("raft stores of %s fail with ENOSPC (leader: %v)", n.id, wasLeader)
	f.pause(2*time.Second, 3*time.Second)
	stillLeads := n.term() > 0
	if err := n.setFaults(); err != nil {
		return err
	}
	if wasLeader && stillLeads {
		return fmt.Errorf("%s still leads after seconds of failing to store raft entries", n.id)
	}
	return nil
}

// clockStep: a follower's wall clock steps by +1 h or -1 h. The running
// process must not care (its timers count on the monotonic clock); then it
// restarts with the stepped clock and is made the leader (the others
// killed in turn until it leads): reservations and delays made under the
// old leader's clock must neither end early nor fire twice.
func (f *faultRun) clockStep() error {
	i := f.follower()
	n := f.sys.nodes[i]
	step := []string{"+1h", "-1h"}[f.rng.IntN(2)]
	if err := n.setFaults("clock " + step); err != nil {
		return err
	}
	f.note("clock of %s stepped %s", n.id, step)
	f.pause(500*time.Millisecond, time.Second)
	n.kill()
	if err := n.start(); err != nil {
		return err
	}
	for try := 0; try < 6 && f.leader() != i; try++ {
		l := f.leader()
		f.sys.nodes[l].kill()
		f.note("killed %s so that %s may lead", f.sys.nodes[l].id, n.id)
		time.Sleep(1500 * time.Millisecond)
		if err := f.sys.nodes[l].start(); err != nil {
			return err
		}
	}
	f.note("%s leads: %v", n.id, f.leader() == i)
	f.pause(1500*time.Millisecond, 2*time.Second)
	return n.setFaults() // the clock stays stepped until the next restart
}

// tornTail: a follower is killed and the end of its newest raft log
// segment torn (cut short, or garbage appended); it must start on what is
// left (repaired to the last good entry) or refuse to, never apply half
// an entry, and catch up from the leader.
func (f *faultRun) tornTail() error {
	i := f.follower()
	n := f.sys.nodes[i]
	n.kill()
	segs, _ := filepath.Glob(filepath.Join(n.dir, "raft", "wal", "*.wal"))
	if len(segs) == 0 {
		return n.start()
	}
	slices.Sort(segs)
	last := segs[len(segs)-1]
	info, err := os.Stat(last)
	if err != nil {
		return err
	}
	size := info.Size()
	if f.rng.IntN(2) == 0 {
		cut := 1 + f.rng.Int64N(min(size, 200))
		if err := os.Truncate(last, size-cut); err != nil {
			return err
		}
		f.note("cut %d bytes off %s of %s", cut, filepath.Base(last), n.id)
	} else {
		fh, err := os.OpenFile(last, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		junk := make([]byte, 1+f.rng.IntN(100))
		for k := range junk {
			junk[k] = byte(f.rng.IntN(256))
		}
		_, err = fh.Write(junk)
		fh.Close()
		if err != nil {
			return err
		}
		f.note("appended %d bytes of garbage to %s of %s", len(junk), filepath.Base(last), n.id)
	}
	return n.start()
}

// mixPartitionKill: the leader is cut off and, meanwhile, a follower is
// killed (no majority anywhere); then the follower restarts and the
// partition heals.
func (f *faultRun) mixPartitionKill() error {
	l := f.leader()
	fo := (l + 1 + f.rng.IntN(2)) % 3
	f.sys.mesh.Isolate(l)
	f.note("cut links of %s", f.sys.nodes[l].id)
	f.pause(500*time.Millisecond, 1500*time.Millisecond)
	f.sys.nodes[fo].kill()
	f.note("killed %s", f.sys.nodes[fo].id)
	f.pause(time.Second, 2*time.Second)
	if err := f.sys.nodes[fo].start(); err != nil {
		return err
	}
	f.pause(500*time.Millisecond, time.Second)
	f.sys.heal()
	return nil
}

// mixStallKill: the leader's raft stores stall and it is killed in the
// middle.
func (f *faultRun) mixStallKill() error {
	l := f.leader()
	n := f.sys.nodes[l]
	if err := n.setFaults("raft.store stall 2s"); err != nil {
		return err
	}
	f.pause(500*time.Millisecond, 2*time.Second)
	if err := n.setFaults(); err != nil {
		return err
	}
	return f.killRestart(l)
}

// readyz returns the node's /readyz status and reason.
func readyz(n *node) (int, string) {
	addr := n.adminAddr()
	if addr == "" {
		return 0, "no admin address"
	}
	cl := http.Client{Timeout: 5 * time.Second}
	resp, err := cl.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var h struct{ Status, Reason string }
	_ = json.NewDecoder(resp.Body).Decode(&h)
	return resp.StatusCode, h.Reason
}
