package main

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
)

func TestPutFromArgumentAndStdin(t *testing.T) {
	addr := startServer(t)
	var put struct {
		ID    uint64 `json:"id"`
		Tube  string `json:"tube"`
		Bytes int    `json:"bytes"`
	}
	jsonCtl(t, addr, &put, "put", "hello world", "-t", "emails", "--pri", "7", "--delay", "100", "--ttr", "9")
	if put.Tube != "emails" || put.Bytes != 11 || put.ID == 0 {
		t.Fatalf("put reported %+v", put)
	}
	bc := beanConn(t, addr)
	st, err := bc.StatsJob(put.ID)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"tube": "emails", "pri": "7", "delay": "100", "ttr": "9", "state": "delayed"} {
		if strings.Trim(st[k], `"`) != want { // go-beanstalk keeps 1.13's quotes
			t.Errorf("stats-job %s = %q, want %q", k, st[k], want)
		}
	}
	body, err := bc.Peek(put.ID)
	if err != nil || string(body) != "hello world" {
		t.Fatalf("peek = %q, %v", body, err)
	}

	// No argument, and "-": the body is stdin, bytes kept exactly.
	raw := "line one\nline two\x00\xff"
	for _, args := range [][]string{{"put"}, {"put", "-"}} {
		r := ctl(t, addr, raw, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d %s", args, r.code, r.stderr)
		}
		f := strings.Fields(r.stdout) // inserted job N into tube "default" ...
		id, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil {
			t.Fatalf("output %q: %v", r.stdout, err)
		}
		if body, err := bc.Peek(id); err != nil || string(body) != raw {
			t.Fatalf("%v: body %q, %v", args, body, err)
		}
	}
	ts := beanstalk.Tube{Conn: bc, Name: "default"}
	if s, _ := ts.Stats(); s["current-jobs-ready"] != "2" {
		t.Fatalf("default ready = %q, want 2", s["current-jobs-ready"])
	}
}

func TestPeekByIDAndState(t *testing.T) {
	addr := startServer(t)
	bc := beanConn(t, addr)
	bc.Tube.Name = "work"
	ready, _ := bc.Put([]byte("r"), 1, 0, time.Minute)
	delayed, _ := bc.Put([]byte("d"), 1, time.Hour, time.Minute)
	buried, _ := bc.Put([]byte{0, 1, 2}, 0, 0, time.Minute)
	// The most urgent job (pri 0) is the one reserved, then buried.
	if id, _, err := beanstalk.NewTubeSet(bc, "work").Reserve(10 * time.Second); err != nil || id != buried {
		t.Fatalf("reserve = %d, %v; want %d", id, err, buried)
	}
	if err := bc.Bury(buried, 0); err != nil {
		t.Fatal(err)
	}
	type peeked struct {
		ID    uint64         `json:"id"`
		Body  string         `json:"body"`
		B64   string         `json:"body_base64"`
		Stats map[string]any `json:"stats"`
	}
	cases := []struct {
		args  []string
		id    uint64
		state string
	}{
		{[]string{"peek", strconv.FormatUint(ready, 10)}, ready, "ready"},
		{[]string{"peek", "ready", "-t", "work"}, ready, "ready"},
		{[]string{"peek", "delayed", "-t", "work"}, delayed, "delayed"},
		{[]string{"peek", "buried", "--tube", "work"}, buried, "buried"},
	}
	for _, c := range cases {
		var p peeked
		jsonCtl(t, addr, &p, c.args...)
		if p.ID != c.id || p.Stats["state"] != c.state || p.Stats["tube"] != "work" {
			t.Errorf("%v: got %+v, want id %d state %s", c.args, p, c.id, c.state)
		}
	}
	var p peeked
	jsonCtl(t, addr, &p, "peek", strconv.FormatUint(buried, 10))
	if b, _ := base64.StdEncoding.DecodeString(p.B64); string(b) != "\x00\x01\x02" || p.Body != "" {
		t.Errorf("binary body: got %+v", p)
	}
	out := mustCtl(t, addr, "peek", strconv.FormatUint(buried, 10))
	if !strings.Contains(out, `"\x00\x01\x02"`) || !strings.Contains(out, "state: buried") {
		t.Errorf("binary body not quoted for the terminal:\n%s", out)
	}
	out = mustCtl(t, addr, "peek", strconv.FormatUint(ready, 10))
	if !strings.HasSuffix(out, "body (1 bytes):\nr\n") {
		t.Errorf("text body:\n%s", out)
	}

	for _, args := range [][]string{{"peek", "99999"}, {"peek", "buried"}, {"peek", "delayed", "-t", "nosuch"}} {
		if r := ctl(t, addr, "", args...); r.code != exitNotFound || !strings.Contains(r.stderr, "no") {
			t.Errorf("%v: exit %d, stderr %q; want %d", args, r.code, r.stderr, exitNotFound)
		}
	}
	if r := ctl(t, addr, "", "peek", "soon"); r.code != exitUsage {
		t.Errorf("peek soon: exit %d, want %d", r.code, exitUsage)
	}
}

func TestKickKickJobDelete(t *testing.T) {
	addr := startServer(t)
	bc := beanConn(t, addr)
	bc.Tube.Name = "k"
	ts := beanstalk.NewTubeSet(bc, "k")
	var ids []uint64
	for i := range 3 {
		id, err := bc.Put([]byte{byte('a' + i)}, 0, 0, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for range ids {
		id, _, err := ts.Reserve(10 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		bc.Bury(id, 0)
	}
	tube := beanstalk.Tube{Conn: bc, Name: "k"}
	count := func(key string) string { s, _ := tube.Stats(); return s[key] }

	if out := mustCtl(t, addr, "kick", "2", "-t", "k"); !strings.Contains(out, "kicked 2 jobs") {
		t.Errorf("kick output %q", out)
	}
	if count("current-jobs-buried") != "1" || count("current-jobs-ready") != "2" {
		t.Fatalf("after kick 2: buried %s ready %s", count("current-jobs-buried"), count("current-jobs-ready"))
	}
	var k struct {
		Kicked uint64 `json:"kicked"`
	}
	jsonCtl(t, addr, &k, "kick", "5") // the default tube has nothing
	if k.Kicked != 0 {
		t.Errorf("kick in default kicked %d", k.Kicked)
	}
	last := strconv.FormatUint(ids[2], 10)
	if out := mustCtl(t, addr, "kick-job", last); out != "kicked job "+last+"\n" {
		t.Errorf("kick-job output %q", out)
	}
	if count("current-jobs-ready") != "3" {
		t.Fatalf("after kick-job: ready %s", count("current-jobs-ready"))
	}
	if r := ctl(t, addr, "", "kick-job", last); r.code != exitNotFound {
		t.Errorf("kick-job of a ready job: exit %d %q", r.code, r.stderr)
	}
	if out := mustCtl(t, addr, "delete", last); out != "deleted job "+last+"\n" {
		t.Errorf("delete output %q", out)
	}
	if _, err := bc.Peek(ids[2]); err == nil {
		t.Fatal("job still there after delete")
	}
	r := ctl(t, addr, "", "delete", last)
	if r.code != exitNotFound || r.stderr != "stalkctl: job "+last+" not found\n" {
		t.Errorf("second delete: exit %d stderr %q", r.code, r.stderr)
	}
	if r := ctl(t, addr, "", "kick", "-1"); r.code != exitUsage {
		t.Errorf("kick -1: exit %d", r.code)
	}
}

func TestPause(t *testing.T) {
	addr := startServer(t)
	bc := beanConn(t, addr)
	bc.Tube.Name = "p"
	bc.Put([]byte("x"), 0, 0, time.Minute)
	mustCtl(t, addr, "pause", "p", "100")
	tube := beanstalk.Tube{Conn: bc, Name: "p"}
	if s, _ := tube.Stats(); s["pause"] != "100" {
		t.Fatalf("pause = %q after pause p 100", s["pause"])
	}
	var tubes []map[string]any
	jsonCtl(t, addr, &tubes, "tubes")
	if out := mustCtl(t, addr, "pause", "p", "0"); out != "resumed tube \"p\"\n" {
		t.Errorf("resume output %q", out)
	}
	if s, _ := tube.Stats(); s["pause"] != "0" {
		t.Fatalf("pause = %q after resume", s["pause"])
	}
	if r := ctl(t, addr, "", "pause", "nosuch", "5"); r.code != exitNotFound {
		t.Errorf("pause of a missing tube: exit %d", r.code)
	}
}
