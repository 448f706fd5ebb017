package enginetest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"testing"
)

// FreeAddr returns a loopback TCP address nothing listens on, for a
// process that a test starts with that address as a flag. A port merely
// released by a listener on port 0 may be handed to the next socket that
// binds port 0 or connects out (a node's client port, a dial) before that
// process binds it; so FreeAddr draws its port below the kernel's
// ephemeral range, which those never use, checks that it binds, and never
// returns one port twice in a test binary. Safe for concurrent use.
func FreeAddr(t testing.TB) string {
	t.Helper()
	lo := ephemeralLow()
	for range 1000 {
		port := freeFloor + rand.IntN(lo-freeFloor)
		if !claimPort(port) {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		return addr
	}
	t.Fatal("enginetest: no free port below the ephemeral range")
	return ""
}

// freeFloor is the lowest port FreeAddr draws (clear of well-known and
// registered services most boxes run).
const freeFloor = 20000

var (
	claimedMu sync.Mutex
	claimed   = map[int]bool{}
)

func claimPort(p int) bool {
	claimedMu.Lock()
	defer claimedMu.Unlock()
	if claimed[p] {
		return false
	}
	claimed[p] = true
	return true
}

// ephemeralLow is the lowest port of the kernel's ephemeral range (Linux:
// /proc/sys/net/ipv4/ip_local_port_range), 32768 when unknown or too low
// to leave FreeAddr room.
func ephemeralLow() int {
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var a, z int
		if n, _ := fmt.Sscan(string(b), &a, &z); n == 2 && a > freeFloor+1000 {
			lo = a
		}
	}
	return lo
}
