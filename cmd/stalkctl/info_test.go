package main

import (
	"strings"
	"testing"
	"time"
)

func TestStatsAndStatsTube(t *testing.T) {
	addr := startServer(t)
	mustCtl(t, addr, "put", "a", "-t", "s1")
	mustCtl(t, addr, "put", "b", "-t", "s1", "--delay", "60")
	var st map[string]any
	jsonCtl(t, addr, &st, "stats")
	if st["cmd-put"] != float64(2) || st["current-jobs-delayed"] != float64(1) {
		t.Errorf("stats: cmd-put %v delayed %v", st["cmd-put"], st["current-jobs-delayed"])
	}
	if _, ok := st["version"].(string); !ok {
		t.Errorf("stats version is not a string: %#v", st["version"])
	}
	if d, ok := st["draining"].(bool); !ok || d {
		t.Errorf("stats draining = %#v, want false", st["draining"])
	}
	out := mustCtl(t, addr, "stats")
	if !strings.Contains(out, "\ncmd-put:") || !strings.Contains(out, "current-jobs-delayed:") {
		t.Errorf("stats text:\n%s", out)
	}
	// Keys are aligned: every value starts in the same column.
	col := -1
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		i := strings.Index(l, ":") + 1
		i += len(l[i:]) - len(strings.TrimLeft(l[i:], " "))
		if col >= 0 && i != col {
			t.Fatalf("stats values not aligned at %q (col %d, want %d)", l, i, col)
		}
		col = i
	}

	jsonCtl(t, addr, &st, "stats-tube", "s1")
	if st["name"] != "s1" || st["total-jobs"] != float64(2) || st["current-jobs-ready"] != float64(1) {
		t.Errorf("stats-tube s1: %v", st)
	}
	if r := ctl(t, addr, "", "stats-tube", "nosuch"); r.code != exitNotFound || !strings.Contains(r.stderr, `tube "nosuch" not found`) {
		t.Errorf("stats-tube nosuch: exit %d %q", r.code, r.stderr)
	}
}

func TestTubesTable(t *testing.T) {
	addr := startServer(t)
	bc := beanConn(t, addr)
	for tube, n := range map[string]int{"alpha": 3, "beta-long-name": 1} {
		bc.Tube.Name = tube
		for range n {
			if _, err := bc.Put([]byte("x"), 0, 0, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
	}
	bc.Tube.Name = "alpha"
	bc.Put([]byte("later"), 0, time.Hour, time.Minute)
	out := mustCtl(t, addr, "tubes")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "TUBE ") {
		t.Fatalf("tubes table:\n%s", out)
	}
	for _, l := range lines[1:] {
		if len(l) != len(lines[0]) {
			t.Errorf("row %q is not as wide as the header %q", l, lines[0])
		}
	}
	head := strings.Fields(lines[0])
	row := map[string][]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		row[f[0]] = f
	}
	col := func(tube, name string) string {
		for i, h := range head {
			if h == name {
				return row[tube][i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	if col("alpha", "READY") != "3" || col("alpha", "DELAYED") != "1" || col("alpha", "TOTAL") != "4" ||
		col("beta-long-name", "READY") != "1" || col("default", "READY") != "0" {
		t.Errorf("tubes table counts wrong:\n%s", out)
	}

	var tubes []map[string]any
	jsonCtl(t, addr, &tubes, "tubes")
	if len(tubes) != 3 || tubes[0]["name"] != "alpha" || tubes[0]["current-jobs-ready"] != float64(3) {
		t.Errorf("tubes JSON: %v", tubes)
	}
}

func TestUsageAndErrors(t *testing.T) {
	r := ctl(t, "127.0.0.1:1", "", "-h")
	if r.code != 0 || !strings.Contains(r.stdout, "exit codes:") || !strings.Contains(r.stdout, "drain") {
		t.Errorf("-h: exit %d\n%s", r.code, r.stdout)
	}
	if r := ctl(t, "127.0.0.1:1", "", "put", "-h"); r.code != 0 || !strings.Contains(r.stdout, "--ttr") {
		t.Errorf("put -h: exit %d", r.code)
	}
	// Bad arguments are found before connecting: nothing listens on port 1.
	for _, args := range [][]string{{}, {"nosuch"}, {"stats", "extra"}, {"pause", "t"}, {"put", "--pri", "x"},
		{"put", "--pri", "4294967296"}, {"list", "t", "sideways"}, {"kick", "x"}, {"delete", "abc"},
		{"kick-job", "-"}, {"pause", "t", "soon"}, {"peek", "soon"}, {"top", "--interval", "0"},
		{"drain", "t", "--interval", "-1s"}} {
		if r := ctl(t, "127.0.0.1:1", "", args...); r.code != exitUsage || r.stderr == "" {
			t.Errorf("%v: exit %d stderr %q, want %d", args, r.code, r.stderr, exitUsage)
		}
	}
	// Nothing listens on port 1.
	r = ctl(t, "127.0.0.1:1", "", "stats")
	if r.code != exitConnect || !strings.Contains(r.stderr, "cannot connect to 127.0.0.1:1") {
		t.Errorf("no server: exit %d %q", r.code, r.stderr)
	}
	// -a wins over $STALKD_ADDR, and may follow the command.
	addr := startServer(t)
	if r := ctl(t, "127.0.0.1:1", "", "stats", "-a", addr); r.code != 0 {
		t.Errorf("-a after the command: exit %d %q", r.code, r.stderr)
	}
}

func TestUnixSocketAddress(t *testing.T) {
	path := t.TempDir() + "/s.sock"
	startServerAt(t, "unix:"+path)
	if out := mustCtl(t, "unix:"+path, "put", "via unix"); !strings.HasPrefix(out, "inserted job 1 ") {
		t.Errorf("put over a unix socket: %q", out)
	}
}
