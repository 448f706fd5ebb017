package client

import (
	"errors"
	"net"
	"strings"
	"testing"
)

func TestParseStats(t *testing.T) {
	s, err := ParseStats([]byte("---\nname: \"emails\"\ncurrent-jobs-ready: 12\nhostname: 'h''x'\nrusage-utime: 0.250000\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("name"); v != "emails" {
		t.Errorf("name = %q", v)
	}
	if v, _ := s.Get("hostname"); v != "h'x" {
		t.Errorf("hostname = %q", v)
	}
	if s.Int("current-jobs-ready") != 12 || s.Float("rusage-utime") != 0.25 || s.Int("missing") != 0 {
		t.Errorf("numbers: %v", s)
	}
	if s[0].Key != "name" || s[3].Key != "rusage-utime" {
		t.Errorf("order lost: %v", s)
	}
	if _, err := ParseStats([]byte("---\nno colon here\n")); !errors.Is(err, ErrProtocol) {
		t.Errorf("bad line: %v", err)
	}
}

func TestParseList(t *testing.T) {
	l, err := ParseList([]byte("---\n- default\n- a-b\n- \"q\"\n"))
	if err != nil || strings.Join(l, ",") != "default,a-b,q" {
		t.Errorf("list = %q, %v", l, err)
	}
	if l, err := ParseList([]byte("--- []\n")); err == nil && len(l) != 0 {
		t.Errorf("empty flow list = %q", l)
	}
	if _, err := ParseList([]byte("---\nx\n")); !errors.Is(err, ErrProtocol) {
		t.Errorf("bad list: %v", err)
	}
}

func TestNetwork(t *testing.T) {
	for in, want := range map[string][2]string{
		"unix:/run/s.sock": {"unix", "/run/s.sock"},
		"10.0.0.1:1234":    {"tcp", "10.0.0.1:1234"},
		"queue.internal":   {"tcp", "queue.internal:11300"},
		"::1":              {"tcp", "[::1]:11300"},
		"[::1]:5":          {"tcp", "[::1]:5"},
	} {
		n, a := Network(in)
		if n != want[0] || a != want[1] {
			t.Errorf("Network(%q) = %s %s, want %v", in, n, a, want)
		}
	}
}

// scripted answers each command with the next canned reply.
func scripted(t *testing.T, replies ...string) *Conn {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	go func() {
		buf := make([]byte, 4096)
		for _, r := range replies {
			if _, err := b.Read(buf); err != nil {
				return
			}
			b.Write([]byte(r))
		}
	}()
	return NewConn(a)
}

func TestRepliesAndErrors(t *testing.T) {
	c := scripted(t, "BURIED 9\r\n", "OK 3\r\nabcXX", "NOT_FOUND\r\n", "WHAT\r\n", "INSERTED x\r\n")
	if _, err := c.Put(0, 0, 1, []byte("b")); !errors.Is(err, ErrBuried) {
		t.Errorf("BURIED: %v", err)
	} else if be := new(BuriedError); !errors.As(err, &be) || be.ID != 9 {
		t.Errorf("BURIED id: %v", err)
	}
	if _, err := c.Stats(); !errors.Is(err, ErrProtocol) {
		t.Errorf("body without CRLF: %v", err)
	}
	c = scripted(t, "NOT_FOUND\r\n", "WHAT\r\n", "INSERTED x\r\n", "CLEARED 12\r\n")
	if err := c.Delete(1); !errors.Is(err, ErrNotFound) || !strings.HasPrefix(err.Error(), "delete 1: ") {
		t.Errorf("NOT_FOUND: %v", err)
	}
	if err := c.Delete(1); !errors.Is(err, ErrProtocol) {
		t.Errorf("unknown word: %v", err)
	}
	if _, err := c.Put(0, 0, 1, nil); !errors.Is(err, ErrProtocol) {
		t.Errorf("bad id: %v", err)
	}
	if n, err := c.ClearTube("t"); err != nil || n != 12 {
		t.Errorf("clear = %d, %v", n, err)
	}
}
