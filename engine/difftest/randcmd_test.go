package difftest

import (
	"strconv"
	"strings"
)

// The random commands of the generator (randgen_test.go): valid ones, and
// ones with missing, extra or malformed arguments.

// command returns one command line (a put with its body), CRLF-terminated,
// for connection conn. It never blocks: reserves are steps of their own. Its
// line never has its \r at the 224th byte of a window: the reference misses
// that CRLF (the deliberate "window-edge-crlf"). On a dirty connection,
// where a line may start with left-overs (at most a short body's worth),
// its line is short.
func (g *gen) command(conn string) string {
	for {
		cmd := g.anyCommand(conn)
		i := strings.Index(cmd, "\r\n")
		if i < 0 || i%224 != 223 && (!g.dirty[conn] || i < 150) {
			return cmd
		}
	}
}

// anyCommand returns one command line, of any length.
func (g *gen) anyCommand(conn string) string {
	switch n := g.r.Intn(100); {
	case n < 22:
		return g.put(conn, false)
	case n < 29:
		return "use " + g.tubeName(true) + "\r\n"
	case n < 36:
		return "watch " + g.tubeName(false) + "\r\n"
	case n < 40:
		return "ignore " + g.tubeName(true) + "\r\n"
	case n < 44:
		return "reserve-job " + g.num(g.id()) + "\r\n"
	case n < 49:
		return "delete " + g.num(g.ownID(conn)) + "\r\n"
	case n < 54:
		return "release " + g.num(g.ownID(conn)) + " " + g.num(g.pri()) + " " + g.num(g.delay()) + "\r\n"
	case n < 58:
		return "bury " + g.num(g.ownID(conn)) + " " + g.num(g.pri()) + "\r\n"
	case n < 61:
		return "touch " + g.num(g.ownID(conn)) + "\r\n"
	case n < 65:
		return "kick " + pick(g, "0", "1", "2", "10", "1000", "-1", "+3", "  2", "\t1", "10abc", "4294967296",
			"4294967297", "18446744073709551615", "99999999999999999999", "abc", "", " ", "1 ") + "\r\n"
	case n < 68:
		return "kick-job " + g.num(g.id()) + "\r\n"
	case n < 71:
		return "peek " + g.num(g.id()) + "\r\n"
	case n < 75:
		return pick(g, "peek-ready", "peek-delayed", "peek-buried") + pick(g, "", "", "", " ", "x", " 1") + "\r\n"
	case n < 79:
		return "stats-job " + g.num(g.id()) + "\r\n"
	case n < 83:
		return "stats-tube " + g.tubeName(true) + "\r\n"
	case n < 85:
		return pick(g, "stats", "stats", "stats ", "statsx") + "\r\n"
	case n < 89:
		return pick(g, "list-tubes", "list-tube-used", "list-tubes-watched") + pick(g, "", "", "", " ", "x") + "\r\n"
	case n < 92:
		return pick(g, "pause-tube ", "pause-tube ", "pause-tube", "pause-tube  ") + g.tubeName(true) + " " +
			g.num(pick(g, "1000", "3600", "4294967295", "0")) + "\r\n"
	case n < 96:
		return g.oddLine(conn)
	case n < 97:
		return pick(g, "quit", "quitxyz", "quit ") + "\r\n"
	}
	return pick(g, "PUT 0 0 0 0", "foo", "", "version", "reserve ", "reserve-job", "reserve-jobx", "kick", "use",
		"kick ", "use ", "watch", "ignore ", "delete", "delete ", "peek", "peek ", "touch", "bury", "release",
		"release 1", "release 1 2", "bury 1", "stats-tube", "stats-job", "stats-job ", "put", "put ", "put 0 0 0",
		"list-tube-usedx", "kick-job", "kick-job ", "pause-tube", "pause-tube x", " stats", "put\t0 0 0 0") + "\r\n"
}

// put returns a put line and its body for connection conn. tiny: a
// well-formed put with a TTR of 0 or 1 (the caller knows the connection uses
// the tube "tiny"). A put that is not well-formed (wrong byte count or end,
// a malformed field) leaves the connection's stream out of step with its
// lines, so the connection becomes dirty.
func (g *gen) put(conn string, tiny bool) string {
	if tiny {
		body := g.body(conn)
		return "put " + g.pri() + " " + g.delay() + " " + pick(g, "0", "1", "00", "01") + " " +
			strconv.Itoa(len(body)) + "\r\n" + body + "\r\n"
	}
	fields := []string{g.pri(), g.delay(), pick(g, "1000", "120", "3600", "4294967295", "86400"), ""}
	wrongSize, mangled, garbage := g.chance(12), g.chance(15), g.chance(3)
	end := "\r\n"
	if g.chance(5) {
		end = pick(g, "", "\n", "x\r\n", "\n\r\n")
	}
	if wrongSize || mangled || garbage || end != "\r\n" || fields[0] == "-1" || fields[0] == "4294967296" {
		g.dirty[conn] = true
	}
	body := g.body(conn)
	fields[3] = strconv.Itoa(len(body))
	if wrongSize {
		fields[3] = strconv.Itoa(max(0, len(body)+pick(g, -2, -1, 1, 2, 5, -len(body))))
	}
	if g.chance(3) && !g.dirty[conn] {
		big := g.maxJob + pick(g, 0, 1, 2)
		body, fields[3] = strings.Repeat("j", big), strconv.Itoa(big)
	}
	if mangled {
		i := g.r.Intn(len(fields))
		fields[i] = g.mangle(fields[i])
	}
	line := "put " + strings.Join(fields, " ")
	if garbage {
		line += pick(g, " ", " x", "\t", " 0")
	}
	return line + "\r\n" + body + end
}

// body returns a job body of a random size, with CR, LF and NUL bytes. On
// a dirty connection, where the body may be read as commands, it is short
// and has no CR: a CR that does not end a line would start a line that
// piles up past 224 bytes, and one whose CRLF straddles a window is the
// deliberate difference "window-edge-crlf".
func (g *gen) body(conn string) string {
	dirty := g.dirty[conn]
	var n int
	switch k := g.r.Intn(100); {
	case k < 15:
		n = 0
	case k < 65:
		n = 1 + g.r.Intn(8)
	case k < 93:
		n = 9 + g.r.Intn(100)
	default:
		n = 100 + g.r.Intn(300)
	}
	alphabet := "abcxyz0189 -\r\n\x00\xff"
	if dirty {
		n, alphabet = min(n, 60), "abcxyz0189 -\n\x00\xff"
	}
	var b strings.Builder
	for b.Len() < n {
		if g.chance(3) && !dirty {
			b.WriteString(pick(g, "\r\n", "use x\r\n", "stats\r\n", "put 0 0 1 1\r\n"))
			continue
		}
		b.WriteByte(alphabet[g.r.Intn(len(alphabet))])
	}
	return b.String()[:n]
}

// pri returns a priority, edge values included (some out of range).
func (g *gen) pri() string {
	if g.chance(60) {
		return strconv.Itoa(g.r.Intn(2000))
	}
	return pick(g, "0", "1", "1023", "1024", "4294967295", "4294967296", "-1", "2147483648")
}

// delay returns a delay that keeps state stable for the whole run: 0, or
// large.
func (g *gen) delay() string {
	if g.chance(65) {
		return "0"
	}
	return pick(g, "1000", "3600", "4294967295", "86400")
}

// id returns a job id: one the reference handed out (tiny jobs excluded),
// or one that does not exist.
func (g *gen) id() string {
	if len(g.ids) > 0 && g.chance(80) {
		return strconv.FormatUint(g.ids[g.r.Intn(len(g.ids))], 10)
	}
	return pick(g, "0", "18446744073709551615", "9999", strconv.FormatUint(g.lastID+1000, 10))
}

// ownID returns, half the time, an id the connection was handed by a
// reserve (release, bury and touch need one), else any id.
func (g *gen) ownID(conn string) string {
	if h := g.held[conn]; len(h) > 0 && g.chance(50) {
		return strconv.FormatUint(h[g.r.Intn(len(h))], 10)
	}
	return g.id()
}

// num returns the decimal v, or now and then a malformed or edge form of it.
func (g *gen) num(v string) string {
	if g.chance(92) {
		return v
	}
	return g.mangle(v)
}

// mangle returns a malformed or odd form of the decimal v.
func (g *gen) mangle(v string) string {
	switch g.r.Intn(12) {
	case 0:
		return "00" + v
	case 1:
		return "+" + v
	case 2:
		return " " + v
	case 3:
		return "\t" + v
	case 4:
		return v + " "
	case 5:
		return ""
	case 6:
		return "-" + v
	case 7:
		return v + "x"
	case 8:
		return "18446744073709551616"
	case 9:
		return "4294967296"
	case 10:
		return "0x10"
	}
	return v + "0000000000"
}

// tubeName returns a tube name: valid (tiny included when mayTiny; watch
// never gets it) or not.
func (g *gen) tubeName(mayTiny bool) string {
	if g.chance(75) {
		n := pick(g, "default", "default", "a", "b", "foo", "1", "007", "1.5", "x-y", "(x)", "$", "+", "/;.$_()",
			"A_b-c", allNameChars, g.validName(200), g.validName(1+g.r.Intn(199)))
		if mayTiny && g.chance(15) {
			return "tiny"
		}
		return n
	}
	return pick(g, g.validName(201), "-foo", "-", "foo!", "foo bar", "", " foo", "foo ", "a\tb", "caf\xc3\xa9",
		"a:b", "a,b", "a\x00b", "*", "a#b", "\"a\"", "a'b", "a\\b", "a@b", "a~b", "a=b")
}

// validName returns a valid name of n characters from every allowed one
// (not starting with '-').
func (g *gen) validName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = allNameChars[g.r.Intn(len(allNameChars))]
		for i == 0 && b[i] == '-' {
			b[i] = allNameChars[g.r.Intn(len(allNameChars))]
		}
	}
	return string(b)
}

// reserveCmd returns a reserve command that may block, sent alone: reserve,
// or reserve-with-timeout with 0, a large timeout, forever, or (on a clean
// connection, where the line is read as sent) an argument the reference
// reads as 0 that 1.13's strict grammar may refuse (strictReserveTimeout).
// Never a short timeout: its expiry is timing.
func (g *gen) reserveCmd(conn string) string {
	if g.chance(35) {
		return "reserve\r\n"
	}
	arg := pick(g, "0", "0", "0", "1000", "-1", "00", "  0", "-0", "-2147483648")
	if !g.dirty[conn] && g.chance(12) {
		arg = pick(g, "+0", "\t0", "0 ", "0 x", "0x", "abc", "", "4294967296")
	}
	return "reserve-with-timeout " + arg + "\r\n"
}

// oddLine returns a line that is odd as a whole: a NUL byte, an over-long
// line, a line of exactly 224 bytes, a line whose \r is not followed by \n or
// that ends in a bare \n (padded on to past 224 bytes, then a CRLF, so the
// next step starts on a fresh line). It never puts a CRLF where its \r is
// the 224th byte of a window (the deliberate "window-edge-crlf"). On a dirty
// connection, where a line may not start where the step starts, only the
// NUL lines.
func (g *gen) oddLine(conn string) string {
	switch k := g.r.Intn(4); {
	case k == 0 || g.dirty[conn]:
		return pick(g, "use a\x00b", "stats\x00", "\x00", "put 0 0 1 1\x00", "peek\x00 1") + "\r\n"
	case k == 1:
		return "use " + pad(218) + "\r\n" // 224 bytes with its CRLF: parsed
	}
	head := pick(g, "use ", "put 0 0 5 3\nabc\n", "stats\n", "use a\rb", "list-tubes\r", "\r", "\n", "peek 1\n", "x")
	n := 224 + g.r.Intn(700)
	if n%224 == 223 {
		n++
	}
	return head + pad(n-len(head)) + "\r\n"
}
