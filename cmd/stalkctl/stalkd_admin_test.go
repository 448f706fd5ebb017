package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// requireAdminCommands skips the test while the server does not serve
// clear-tube and list-jobs (they land in the engine separately, issue 9).
func requireAdminCommands(t *testing.T, addr string) {
	t.Helper()
	c := enginetest.Dial(t, addr)
	if r := c.Ask("list-jobs default ready 0 1\r\n"); r.Head == "UNKNOWN_COMMAND" {
		t.Skip("this server does not serve list-jobs/clear-tube yet")
	}
}

// TestClearAndListAgainstStalkd: list shows the ids in each state, paging
// past 1000; clear deletes ready, delayed and buried jobs and leaves the
// reserved one to its worker.
func TestClearAndListAgainstStalkd(t *testing.T) {
	addr := startServer(t)
	requireAdminCommands(t, addr)
	bc := beanConn(t, addr)
	bc.Tube.Name = "big"
	var ready []string
	for i := range 2100 {
		id, err := bc.Put([]byte("j"), uint32(10+i%3), 0, time.Minute) // priorities interleave the ids
		if err != nil {
			t.Fatal(err)
		}
		ready = append(ready, strconv.FormatUint(id, 10))
	}
	delayed, _ := bc.Put([]byte("later"), 0, time.Hour, time.Minute)
	ts := beanstalk.NewTubeSet(bc, "big")
	bury, _, err := ts.Reserve(10 * time.Second) // the most urgent ready job
	if err != nil {
		t.Fatal(err)
	}
	bc.Bury(bury, 0)
	held, _, err := ts.Reserve(10 * time.Second) // stays reserved
	if err != nil {
		t.Fatal(err)
	}

	out := strings.Fields(mustCtl(t, addr, "list", "big", "ready"))
	if len(out) != 2098 {
		t.Fatalf("list big ready: %d ids, want 2098", len(out))
	}
	seen := map[string]bool{}
	for _, id := range out {
		seen[id] = true
	}
	if seen[strconv.FormatUint(bury, 10)] || seen[strconv.FormatUint(held, 10)] || len(seen) != 2098 {
		t.Errorf("list big ready includes the buried or reserved job, or repeats ids")
	}
	for state, want := range map[string]uint64{"delayed": delayed, "buried": bury, "reserved": held} {
		if got := mustCtl(t, addr, "list", "big", state); got != strconv.FormatUint(want, 10)+"\n" {
			t.Errorf("list big %s = %q, want %d", state, got, want)
		}
	}
	if got := strings.Fields(mustCtl(t, addr, "list", "big", "ready", "--offset", "2090", "--count", "50")); len(got) != 8 ||
		got[0] != out[2090] {
		t.Errorf("list --offset 2090: %v", got)
	}

	var res struct{ Cleared int }
	jsonCtl(t, addr, &res, "clear", "big")
	if res.Cleared != 2098+1+1 {
		t.Errorf("cleared %d, want %d (ready, delayed, buried)", res.Cleared, 2100)
	}
	tube := beanstalk.Tube{Conn: bc, Name: "big"}
	s, err := tube.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s["current-jobs-ready"] != "0" || s["current-jobs-delayed"] != "0" || s["current-jobs-buried"] != "0" ||
		s["current-jobs-reserved"] != "1" {
		t.Errorf("after clear: %v", s)
	}
	if r := ctl(t, addr, "", "clear", "nosuch"); r.code != exitNotFound {
		t.Errorf("clear nosuch: exit %d %q", r.code, r.stderr)
	}
}
