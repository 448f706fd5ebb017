package enginetest

import (
	"testing"
	"time"
)

// FaultMesh is a FaultProxy on every link of a cluster: Link(i, j) carries
// every connection node i dials to node j (i's requests Up, j's answers
// Down), so node i must dial peer j at Addr(i, j). The faults act on one
// node's links at a time, in both directions; Heal undoes them all.
//
// Concurrency: every method is safe for concurrent use; the proxies close
// when the test ends.
type FaultMesh struct {
	links [][]*FaultProxy // links[i][i] is nil
	addrs []string
}

// NewFaultMesh puts a proxy on each link between the nodes whose own
// addresses are targets.
func NewFaultMesh(t testing.TB, targets []string) *FaultMesh {
	m := &FaultMesh{addrs: targets}
	for i := range targets {
		m.links = append(m.links, make([]*FaultProxy, len(targets)))
		for j, target := range targets {
			if i != j {
				m.links[i][j] = NewFaultProxy(t, target)
			}
		}
	}
	return m
}

// Link is the proxy of what node i dials to node j (nil when i == j).
func (m *FaultMesh) Link(i, j int) *FaultProxy { return m.links[i][j] }

// Addr is where node i dials node j: the proxy of their link, or its own
// address when i == j.
func (m *FaultMesh) Addr(i, j int) string {
	if i == j {
		return m.addrs[i]
	}
	return m.links[i][j].Addr()
}

// each calls f for every link from or to node i; from is the dialer.
func (m *FaultMesh) each(i int, f func(from int, l *FaultProxy)) {
	for j := range m.links {
		if j != i {
			f(i, m.links[i][j])
			f(j, m.links[j][i])
		}
	}
}

// Isolate cuts every link of node i.
func (m *FaultMesh) Isolate(i int) { m.each(i, func(_ int, l *FaultProxy) { l.Cut() }) }

// Silence drops every byte node i sends to its peers (out) or every byte
// they send to it (!out), on the connections of both dialers.
func (m *FaultMesh) Silence(i int, out bool) {
	m.each(i, func(from int, l *FaultProxy) {
		up := from == i // Up carries the dialer's bytes
		if !out {
			up = !up
		}
		if up {
			l.Set(Up, Drop)
		} else {
			l.Set(Down, Drop)
		}
	})
}

// Slow delays every byte to and from node i by d.
func (m *FaultMesh) Slow(i int, d time.Duration) {
	m.each(i, func(_ int, l *FaultProxy) {
		l.Set(Up, Delay(d))
		l.Set(Down, Delay(d))
	})
}

// Heal lets every link pass again.
func (m *FaultMesh) Heal() {
	for i := range m.links {
		m.each(i, func(_ int, l *FaultProxy) { l.Heal() })
	}
}
