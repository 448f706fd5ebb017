package difftest

import (
	"fmt"
	"strings"
	"time"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// script is one conversation, played from a fresh start against each server.
type script struct {
	name   string
	maxJob uint32 // -z for the reference, MaxJobSize for stalkd; 0 means 65535
	steps  []step
}

// step is one exchange on one connection: optional writes, then the replies
// to read (or none, or the end of the stream).
type step struct {
	conn    string        // connection name; "" is "a". Opened on first use.
	send    []string      // written in order, one write each
	split   bool          // each part of send is read by the server before the next leaves
	replies int           // number of replies to read
	quiet   bool          // expect no reply once the server has handled what it got (enginetest.Settle)
	eof     bool          // expect the server to close after the replies
	hangup  bool          // close the connection from the client side
	shut    bool          // half-close: shut the client's write side after sending
	sleep   time.Duration // only wait this long (a TTR must pass in real time)
	wait    time.Duration // extra time the replies may legitimately take
	want    *string       // if set, the reference's transcript must be exactly this
	checks  []check       // intent checks, run on both servers' raw replies
}

// say writes send in one write and expects exactly want from the reference
// (and the same from stalkd, modulo the differences table). want is a
// literal transcript: the replies' bytes, "<EOF>" at the end if the server
// must close the connection; an empty want means no reply once the server
// has read and handled every byte sent (enginetest.Settle: the kernel says
// so, no time window).
func say(conn, send, want string) step {
	s := sayParts(conn, want, send)
	s.split = false
	return s
}

// sayParts is say with send split into several writes, each read by the
// server before the next is sent.
func sayParts(conn string, want string, parts ...string) step {
	rs, eof := enginetest.ParseReplies(want)
	return step{conn: conn, send: parts, split: true, replies: len(rs), eof: eof,
		quiet: len(rs) == 0 && !eof, want: &want}
}

// expect reads want on conn without sending anything.
func expect(conn, want string) step {
	s := say(conn, "", want)
	s.send = nil
	return s
}

// silent expects nothing on conn, sending nothing.
func silent(conn string) step { return expect(conn, "") }

// ask writes send and reads n replies without pinning their bytes: the two
// servers must agree, and checks state the intent.
func ask(conn, send string, n int, checks ...check) step {
	return step{conn: conn, send: []string{send}, replies: n, checks: checks}
}

// read reads n replies on conn without sending anything, without pinning
// their bytes.
func read(conn string, n int, checks ...check) step {
	return step{conn: conn, replies: n, checks: checks}
}

// pause lets real time pass: for TTRs and delays, which both servers only
// measure with their own clocks.
func pause(d time.Duration) step {
	return step{sleep: d}
}

// hangup closes conn from the client side, then waits until the server has
// closed its end too before the next step.
func hangup(conn string) step {
	return step{conn: conn, hangup: true}
}

// halfClose sends send, shuts the client's write side (the server sees
// EOF), and expects want.
func halfClose(conn, send, want string) step {
	s := say(conn, send, want)
	s.shut = true
	return s
}

// within allows the replies wait more time (a timeout, a TTR) to arrive.
func (s step) within(d time.Duration) step { s.wait = d; return s }

// connName is the step's connection name.
func (s step) connName() string {
	if s.conn == "" {
		return "a"
	}
	return s.conn
}

// putCmd is a put line and its body, CRLF-terminated: the usual way a script
// stores a job.
func putCmd(pri, delay, ttr int, body string) string {
	return fmt.Sprintf("put %d %d %d %d\r\n%s\r\n", pri, delay, ttr, len(body), body)
}

// name returns a tube name of n characters.
func name(n int) string { return strings.Repeat("n", n) }

// pad returns n filler bytes for over-long lines.
func pad(n int) string { return strings.Repeat("x", n) }
