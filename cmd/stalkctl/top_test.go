package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
)

func TestTopOnce(t *testing.T) {
	addr := startServer(t)
	for i := range 3 {
		mustCtl(t, addr, "put", "x", "-t", "mail")
		if i == 0 {
			mustCtl(t, addr, "put", "x", "-t", "sms", "--delay", "60")
		}
	}
	mustCtl(t, addr, "pause", "sms", "300")
	out := mustCtl(t, addr, "top", "--once", "--interval", "20ms")
	if strings.Contains(out, "\x1b") {
		t.Errorf("--once printed ANSI codes: %q", out)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if want := "protocol " + engine.ProtocolVersion + "  stalkd v" + engine.Version; !strings.Contains(lines[0], want) {
		t.Errorf("top header does not label both versions (%q): %q", want, lines[0])
	}
	if !strings.HasPrefix(lines[0], "stalkctl top  "+addr) || !strings.Contains(lines[1], "ready 3") ||
		!strings.Contains(lines[1], "delayed 1") {
		t.Fatalf("top header:\n%s", out)
	}
	// Busiest tube first: mail (3), sms (1), default (0).
	var order []string
	for _, l := range lines[4:] {
		order = append(order, strings.Fields(l)[0])
	}
	if strings.Join(order, ",") != "mail,sms,default" {
		t.Errorf("tube order %v:\n%s", order, out)
	}
	if !strings.Contains(lines[5], "300s") && !strings.Contains(lines[5], "299s") {
		t.Errorf("paused sms not shown: %q", lines[5])
	}

	var f struct {
		Ready int `json:"ready"`
		Tubes []struct {
			Name    string  `json:"name"`
			Ready   int     `json:"ready"`
			Paused  bool    `json:"paused"`
			PutRate float64 `json:"put_per_sec"`
		} `json:"tubes"`
	}
	if err := json.Unmarshal([]byte(mustCtl(t, addr, "top", "--once", "--json", "--interval", "20ms")), &f); err != nil {
		t.Fatal(err)
	}
	if f.Ready != 3 || len(f.Tubes) != 3 || f.Tubes[0].Name != "mail" || f.Tubes[0].Ready != 3 || !f.Tubes[1].Paused {
		t.Errorf("top JSON: %+v", f)
	}
}

func TestTopInteractiveQuitsOnQ(t *testing.T) {
	addr := startServer(t)
	mustCtl(t, addr, "put", "x", "-t", "live")
	keys, typing := io.Pipe()
	defer typing.Close()
	var out, errb syncBuffer
	a := testApp(nil, &out, &errb, map[string]string{"STALKD_ADDR": addr})
	a.stdoutTTY, a.keys = true, keys
	done := runAsync(t, a, "top", "--interval", "10ms")
	// Wait for a frame with rates (the second sample), then press q.
	enginetest.Eventually(t, "a redrawn frame", func() bool { return strings.Count(out.String(), ansiHome) >= 2 })
	typing.Write([]byte("q"))
	if code := waitExit(t, done); code != 0 {
		t.Fatalf("top exit %d: %s", code, errb.String())
	}
	s := out.String()
	if !strings.HasPrefix(s, ansiAltScreen) || !strings.HasSuffix(s, ansiMainScree) {
		t.Errorf("top did not enter and leave the alternate screen: %q", s)
	}
	if !strings.Contains(s, "live") || !strings.Contains(s, "(q to quit)") {
		t.Errorf("frame content: %q", s)
	}
}

// stats builds a stats document from alternating keys and values.
func stats(kv ...string) client.Stats {
	var s client.Stats
	for i := 0; i+1 < len(kv); i += 2 {
		s = append(s, client.Field{Key: kv[i], Value: kv[i+1]})
	}
	return s
}

func TestFrameRates(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := &sample{at: t0,
		server: stats("cmd-put", "100", "cmd-reserve", "10", "cmd-reserve-with-timeout", "5", "cmd-delete", "50"),
		tubes: []client.Stats{stats("name", "a", "total-jobs", "40", "cmd-delete", "0"),
			stats("name", "b", "total-jobs", "60", "cmd-delete", "50")}}
	cur := &sample{at: t0.Add(2 * time.Second),
		server: stats("cmd-put", "300", "cmd-reserve", "30", "cmd-reserve-with-timeout", "25", "cmd-delete", "90",
			"current-jobs-ready", "7"),
		tubes: []client.Stats{stats("name", "a", "total-jobs", "240", "cmd-delete", "10", "current-jobs-ready", "7"),
			stats("name", "b", "total-jobs", "60", "cmd-delete", "80"),
			stats("name", "new", "total-jobs", "5")}}
	f := buildFrame(prev, cur)
	if f.PutRate != 100 || f.ReserveRate != 20 || f.DeleteRate != 20 || f.Ready != 7 {
		t.Errorf("server rates: put %v reserve %v delete %v", f.PutRate, f.ReserveRate, f.DeleteRate)
	}
	byName := map[string]tubeRow{}
	for _, r := range f.Tubes {
		byName[r.Name] = r
	}
	if a := byName["a"]; a.PutRate != 100 || a.DelRate != 5 {
		t.Errorf("tube a rates %+v", a)
	}
	if b := byName["b"]; b.PutRate != 0 || b.DelRate != 15 {
		t.Errorf("tube b rates %+v", b)
	}
	if n := byName["new"]; n.PutRate != 0 { // no earlier sample of it
		t.Errorf("new tube rate %+v", n)
	}
	// A restarted server (counters went down) gives 0, not a negative rate.
	if f := buildFrame(cur, prev); f.PutRate != 0 || f.DeleteRate != 0 {
		t.Errorf("rates after a restart: %+v", f)
	}
	// A server that is not stalkd has one version: its protocol's.
	if v := (frame{Version: "1.12"}).versions(); v != "protocol 1.12" {
		t.Errorf("a beanstalkd's versions: %q", v)
	}
	// The first frame has no rates: shown as "-".
	if l := buildFrame(nil, cur).lines("x", 0, 0); !strings.Contains(l[1], "put/s -") {
		t.Errorf("first frame: %q", l[1])
	}
	// A short terminal: the rows that do not fit are counted.
	l := f.lines("x", 40, 6)
	if len(l) != 6 || l[len(l)-1] != "... 2 more tubes" {
		t.Errorf("6-line frame: %q", l)
	}
	for _, s := range l {
		if len([]rune(s)) > 40 {
			t.Errorf("line wider than 40: %q", s)
		}
	}
}

func TestStatsJSONTypes(t *testing.T) {
	server := orderedStats(stats("id", "12345678", "version", "1.13", "uptime", "5", "rusage-utime", "0.250000",
		"draining", "false", "hostname", "007"))
	b, err := server.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"12345678","version":"1.13","uptime":5,"rusage-utime":0.25,"draining":false,"hostname":"007"}`
	if string(b) != want {
		t.Errorf("server stats JSON\n got %s\nwant %s", b, want)
	}
	job := orderedStats(stats("id", "42", "tube", "7", "time-left", "0"))
	if b, _ := job.MarshalJSON(); string(b) != `{"id":42,"tube":"7","time-left":0}` {
		t.Errorf("job stats JSON %s", b)
	}
}
