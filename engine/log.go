package engine

import (
	"bytes"
	"fmt"
	"net"
	"strconv"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/stalkd/stalkd/codec"
)

// gnetLogger routes gnet's own logging into the server's logger, so that a
// program has one log stream. gnet's info and debug chatter (start-up
// banners, "default logging level is ...", loop exits) says nothing the
// server's own lines do not, and is dropped; its warnings and errors are
// kept at their level, marked library=gnet.
type gnetLogger struct{ l zerolog.Logger }

func (g gnetLogger) Debugf(string, ...any) {}
func (g gnetLogger) Infof(string, ...any)  {}
func (g gnetLogger) Warnf(format string, args ...any) {
	g.l.Warn().Str("library", "gnet").Msgf(format, args...)
}
func (g gnetLogger) Errorf(format string, args ...any) {
	g.l.Error().Str("library", "gnet").Msgf(format, args...)
}
func (g gnetLogger) Fatalf(format string, args ...any) {
	// gnet calls Fatalf only where it would otherwise give up; never exit
	// the embedding process for it.
	g.l.Error().Str("library", "gnet").Msg(fmt.Sprintf(format, args...))
}

// traceCommand logs a decoded command at trace level (-VV), like the
// reference's "<FD command NAME" but with the whole command line, rebuilt
// from the command table's argument forms (codec.AppendLine), so no command
// can be missed. A put's body is never logged: its arrival is a "job" line
// with the id and size; an auth token is never logged.
func (cn *conn) traceCommand(cmd *codec.Command) {
	ev := cn.srv.log.Trace().Int("fd", int(cn.fd))
	if cmd.Op == codec.OpPut {
		ev.Uint64("job_id", cn.rx.putID).Int("size_bytes", len(cmd.Body)).Msg("job")
		return
	}
	var buf [96]byte
	ev.Bytes("line", codec.AppendLine(buf[:0], cmd)).Msg("command")
}

// traceReply logs the first line of a reply at trace level (-VV), like the
// reference's ">FD reply TEXT". A reply held until the journal commits
// carries the sequence number it waits for.
func (cn *conn) traceReply(b []byte, seq uint64) {
	line := b
	if i := bytes.IndexByte(line, '\r'); i >= 0 {
		line = line[:i]
	}
	ev := cn.srv.log.Trace().Int("fd", int(cn.fd)).Bytes("reply", line)
	if seq != 0 {
		ev = ev.Uint64("awaits_commit", seq)
	}
	ev.Msg("reply")
}

// verbosityOf reads the logger's level once, so that the per-command path
// tests an int: 2 when trace is enabled (every command and reply), 1 for
// debug (accepts and closes), else 0. A disabled logger (the zero Logger,
// zerolog.Nop) is 0.
func verbosityOf(l zerolog.Logger) int {
	if e := l.Trace(); e.Enabled() {
		e.Discard()
		return 2
	}
	if e := l.Debug(); e.Enabled() {
		e.Discard()
		return 1
	}
	return 0
}

// logListening writes the start-up line: every address the socket accepts
// connections on (an IPv6 wildcard socket that also takes IPv4 lists both),
// the pid and the version. A socket bound to every interface also gets a
// warning, so that nobody exposes a queue to other hosts by accident.
func (s *Server) logListening() {
	ev := s.log.Info().Int("pid", s.proc.pid).Str("version", Version).Str("protocol", s.proc.version)
	if s.tls != nil {
		ev = ev.Stringer("tls_addr", s.tls.acc.ln.Addr())
	}
	if s.addr == nil || s.plain == nil {
		ev.Msg("listening")
		return
	}
	addrs, public := listenAddrs(s.addr, func() bool { return s.plain.v6Only() })
	ev.Stringer("addr", s.addr).Strs("addrs", addrs).Msg("listening")
	if public {
		s.log.Warn().Strs("addrs", addrs).
			Msg("listening on every interface: other hosts can reach this queue; listen on 127.0.0.1 (-l) to keep it local")
	}
}

// listenAddrs lists what a socket bound to a accepts connections on, and
// whether that is every interface. v6Only says whether an IPv6 wildcard
// socket refuses IPv4 (asked only for such a socket).
func listenAddrs(a net.Addr, v6Only func() bool) (addrs []string, public bool) {
	ta, ok := a.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return []string{a.String()}, false
	}
	port := strconv.Itoa(ta.Port)
	v4 := net.JoinHostPort("0.0.0.0", port)
	if ta.IP.To4() != nil {
		return []string{v4}, true
	}
	v6 := net.JoinHostPort("::", port)
	if v6Only() {
		return []string{v6}, true
	}
	return []string{v4, v6}, true
}

// v6Only reads IPV6_V6ONLY of the listener; on error it answers
// false, the Linux default.
func (a *acceptor) v6Only() bool {
	v := 0
	var err error
	cerr := a.raw.Control(func(fd uintptr) {
		v, err = unix.GetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_V6ONLY)
	})
	return cerr == nil && err == nil && v == 1
}
