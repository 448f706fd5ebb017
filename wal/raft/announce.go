package raft

import (
	"github.com/stalkd/stalkd/wal/internal/fields"

	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A leader announces where it serves clients: an entry of its own kind,
// committed at the start of each term, so that a follower knows where to
// forward its clients (a raft address is not a client address).
//
//	version byte (announceVersion)
//	uvarint term, uvarint len(id), id, uvarint len(addr), addr
const announceVersion = 0x81

// announce is where a node served clients as the leader of term.
type announce struct {
	term uint64
	addr string
}

func encodeAnnounce(term uint64, id, addr string) []byte {
	b := []byte{announceVersion}
	b = binary.AppendUvarint(b, term)
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(len(addr)))
	return append(b, addr...)
}

func decodeAnnounce(b []byte) (id string, a announce, err error) {
	if len(b) == 0 || b[0] != announceVersion {
		return "", a, ErrMalformed
	}
	d := decoder{Reader: fields.Reader{B: b[1:], Malformed: ErrMalformed}}
	a.term = d.Uvarint()
	id = string(d.Bytes())
	a.addr = string(d.Bytes())
	if d.Err != nil || len(d.B) != 0 || id == "" {
		return "", announce{}, ErrMalformed
	}
	return id, a, nil
}

// ErrNoLeader: no leader with a known client address within the wait.
var ErrNoLeader = errors.New("raft: no leader")

// announce commits addr as where this node, the leader, serves clients
// (nothing if addr is empty). It waits for the commit (bounded by
// ApplyTimeout) and fails if leadership is lost meanwhile.
func (n *Node) announce(addr string) error {
	if addr == "" {
		return nil
	}
	term := n.raft.CurrentTerm()
	n.mu.Lock()
	n.localAddr, n.localTerm = addr, term
	n.mu.Unlock()
	n.leaderSig.fire()
	f := n.raft.Apply(encodeAnnounce(term, n.cfg.ID, addr), n.cfg.ApplyTimeout)
	if err := f.Error(); err != nil {
		return fmt.Errorf("raft: announce: %w", err)
	}
	return nil
}

// LeaderInfo is where the current leader serves clients.
type LeaderInfo struct {
	Addr  string
	Term  uint64 // the leader's term: each term has an engine of its own
	Local bool   // this node leads
}

// LeaderAddr returns where the current leader serves clients, waiting
// until that is known or ctx ends (then ErrNoLeader).
//
// Waiters sleep until an announcement is applied or this node's term
// starts or ends (with a slow poll as a safety net), so that thousands of
// clients reconnecting during a failover do not spin.
func (n *Node) LeaderAddr(ctx context.Context) (LeaderInfo, error) {
	for {
		changed := n.leaderSig.wait() // before the check: no wake-up is missed
		if li, ok := n.leaderAddr(); ok {
			return li, nil
		}
		select {
		case <-ctx.Done():
			return LeaderInfo{}, ErrNoLeader
		case <-n.stop:
			return LeaderInfo{}, ErrNoLeader
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// LeaderChanged returns a channel closed the next time where the leader
// serves clients may have changed (an announcement applied, this node's
// term started or ended); ask again after each. Safe for concurrent use.
func (n *Node) LeaderChanged() <-chan struct{} { return n.leaderSig.wait() }

// signal wakes every goroutine waiting on it: wait returns a channel that
// fire closes.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) fire() {
	s.mu.Lock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
	s.mu.Unlock()
}

func (n *Node) leaderAddr() (LeaderInfo, bool) {
	n.mu.Lock()
	if n.term != nil && n.localAddr != "" {
		li := LeaderInfo{Addr: n.localAddr, Term: n.localTerm, Local: true}
		n.mu.Unlock()
		return li, true
	}
	n.mu.Unlock()
	_, id := n.raft.LeaderWithID()
	if id == "" || string(id) == n.cfg.ID {
		return LeaderInfo{}, false
	}
	term := n.raft.CurrentTerm()
	var a announce
	_ = n.fsm.withState(func(s *state) error { a = s.announced[string(id)]; return nil })
	if a.addr == "" || a.term != term {
		return LeaderInfo{}, false
	}
	return LeaderInfo{Addr: a.addr, Term: a.term}, true
}
