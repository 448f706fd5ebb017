package main

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeServer answers clear-tube and list-jobs as stalkd specifies them
// (issue 9), or UNKNOWN_COMMAND to everything as a plain beanstalkd would
// to those. It records the commands it got.
type fakeServer struct {
	unknown bool     // answer UNKNOWN_COMMAND to every command
	ids     []uint64 // the jobs of tube "big" in every state
	mu      sync.Mutex
	got     []string
}

func (f *fakeServer) start(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(c)
		}
	}()
	return ln.Addr().String()
}

func (f *fakeServer) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

func (f *fakeServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSuffix(line, "\r\n")
		if line == "quit" {
			return
		}
		f.mu.Lock()
		f.got = append(f.got, line)
		f.mu.Unlock()
		fmt.Fprint(c, f.reply(strings.Fields(line)))
	}
}

func (f *fakeServer) reply(w []string) string {
	if f.unknown || len(w) == 0 {
		return "UNKNOWN_COMMAND\r\n"
	}
	switch {
	case w[0] == "clear-tube" && len(w) == 2:
		if w[1] != "big" {
			return "NOT_FOUND\r\n"
		}
		return fmt.Sprintf("CLEARED %d\r\n", len(f.ids))
	case w[0] == "list-jobs" && len(w) == 5:
		off, err1 := strconv.ParseUint(w[3], 10, 64)
		n, err2 := strconv.ParseUint(w[4], 10, 64)
		switch {
		case err1 != nil || err2 != nil || n > 1000:
			return "BAD_FORMAT\r\n"
		case w[1] != "big":
			return "NOT_FOUND\r\n"
		}
		var b strings.Builder
		b.WriteString("---\n")
		for i := off; i < off+n && i < uint64(len(f.ids)); i++ {
			fmt.Fprintf(&b, "- %d\n", f.ids[i])
		}
		return fmt.Sprintf("OK %d\r\n%s\r\n", b.Len(), b.String())
	}
	return "UNKNOWN_COMMAND\r\n"
}

func TestClearAgainstFake(t *testing.T) {
	f := &fakeServer{ids: make([]uint64, 7)}
	addr := f.start(t)
	if out := mustCtl(t, addr, "clear", "big"); !strings.HasPrefix(out, `cleared 7 jobs from tube "big"`) {
		t.Errorf("clear output %q", out)
	}
	var res struct {
		Tube    string `json:"tube"`
		Cleared int    `json:"cleared"`
	}
	jsonCtl(t, addr, &res, "clear", "big")
	if res.Tube != "big" || res.Cleared != 7 {
		t.Errorf("clear JSON %+v", res)
	}
	if r := ctl(t, addr, "", "clear", "small"); r.code != exitNotFound {
		t.Errorf("clear of a missing tube: exit %d %q", r.code, r.stderr)
	}
	if got := f.commands(); got[0] != "clear-tube big" {
		t.Errorf("sent %q, want clear-tube big", got[0])
	}
}

func TestListPagesAgainstFake(t *testing.T) {
	f := &fakeServer{}
	for i := range 2500 {
		f.ids = append(f.ids, uint64(10+3*i))
	}
	addr := f.start(t)
	out := mustCtl(t, addr, "list", "big", "ready")
	lines := strings.Fields(out)
	if len(lines) != 2500 || lines[0] != "10" || lines[2499] != strconv.FormatUint(f.ids[2499], 10) {
		t.Fatalf("list printed %d ids (first %q)", len(lines), lines[0])
	}
	want := []string{"list-jobs big ready 0 1000", "list-jobs big ready 1000 1000", "list-jobs big ready 2000 1000"}
	if got := f.commands(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pages asked: %q, want %q", got, want)
	}

	var res struct {
		Tube, State string
		Offset      uint64
		IDs         []uint64
	}
	jsonCtl(t, addr, &res, "list", "big", "buried", "--offset", "990", "--count", "15")
	if len(res.IDs) != 15 || res.IDs[0] != f.ids[990] || res.IDs[14] != f.ids[1004] || res.Offset != 990 ||
		res.State != "buried" {
		t.Errorf("list --offset 990 --count 15: %+v", res)
	}
	// Past the end: an empty list, as JSON [] not null.
	if out := mustCtl(t, addr, "--json", "list", "big", "delayed", "--offset", "5000"); !strings.Contains(out, `"ids": []`) {
		t.Errorf("empty list JSON: %s", out)
	}
	if r := ctl(t, addr, "", "list", "small", "ready"); r.code != exitNotFound {
		t.Errorf("list of a missing tube: exit %d", r.code)
	}
}

func TestClearAndListOnPlainBeanstalkd(t *testing.T) {
	f := &fakeServer{unknown: true}
	addr := f.start(t)
	for _, args := range [][]string{{"clear", "t"}, {"list", "t", "ready"}} {
		r := ctl(t, addr, "", args...)
		if r.code != exitUnsupported || !strings.Contains(r.stderr, "needs stalkd") {
			t.Errorf("%v on a plain beanstalkd: exit %d %q", args, r.code, r.stderr)
		}
	}
}
