package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// runAsync runs stalkctl in a goroutine with synchronised output buffers.
func runAsync(t *testing.T, a *app, args ...string) <-chan int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- a.main(context.Background(), args) }()
	return done
}

// waitExit waits (boundedly) for a run started by runAsync.
func waitExit(t *testing.T, done <-chan int) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(30 * time.Second):
		t.Fatal("stalkctl did not finish")
		return -1
	}
}

func TestDrainFinishesWhenJobsAreDeleted(t *testing.T) {
	for _, tty := range []bool{false, true} {
		addr := startServer(t)
		bc := beanConn(t, addr)
		bc.Tube.Name = "d"
		var ids []uint64
		for range 4 {
			id, err := bc.Put([]byte("x"), 0, 0, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		var out, errb syncBuffer
		a := testApp(nil, &out, &errb, map[string]string{"STALKD_ADDR": addr})
		a.stderrTTY = tty
		done := runAsync(t, a, "drain", "d", "--interval", "10ms", "--json")
		enginetest.Eventually(t, "the first progress report", func() bool {
			return strings.Contains(errb.String(), "4 left") ||
				strings.Contains(errb.String(), "4 jobs left")
		})
		for _, id := range ids {
			if err := bc.Delete(id); err != nil {
				t.Fatal(err)
			}
		}
		if code := waitExit(t, done); code != 0 {
			t.Fatalf("tty=%v: drain exit %d, stderr %q", tty, code, errb.String())
		}
		var res struct {
			Drained bool
			Done    int
			Exists  bool
		}
		if err := json.Unmarshal([]byte(out.String()), &res); err != nil || !res.Drained || res.Done != 4 {
			t.Errorf("tty=%v: drain result %q (%v)", tty, out.String(), err)
		}
		progress := errb.String()
		if tty {
			if !strings.Contains(progress, "\r\x1b[Kdrain d [") || !strings.Contains(progress, "100%") ||
				!strings.HasSuffix(progress, "\n") {
				t.Errorf("terminal progress %q", progress)
			}
		} else if strings.Contains(progress, "\x1b") || !strings.Contains(progress, "drain d: 0 jobs left (4 done)") {
			t.Errorf("plain progress %q", progress)
		}
	}
}

func TestDrainCountsReservedAndDelayed(t *testing.T) {
	addr := startServer(t)
	bc := beanConn(t, addr)
	bc.Tube.Name = "busy"
	bc.Put([]byte("later"), 0, time.Hour, time.Minute)
	// A delayed job keeps the tube undrained until the timeout.
	r := ctl(t, addr, "", "drain", "busy", "--interval", "10ms", "--timeout", "50ms")
	if r.code != exitTimeout || !strings.Contains(r.stderr, `tube "busy" not drained after 50ms: 1 jobs left`) {
		t.Errorf("drain with a delayed job: exit %d %q", r.code, r.stderr)
	}
}

func TestDrainOfMissingTube(t *testing.T) {
	addr := startServer(t)
	if out := mustCtl(t, addr, "drain", "ghost"); !strings.Contains(out, "has no jobs (it does not exist)") {
		t.Errorf("drain ghost: %q", out)
	}
}
