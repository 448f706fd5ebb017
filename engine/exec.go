package engine

import (
	"net"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// Executing one decoded command: a connection that has not authenticated
// meets the gate first (token authentication, below); then the command is
// counted, and its decode error answered or its handler run.

// cmdHandler executes one decoded, well-formed command and queues its reply.
type cmdHandler func(cn *conn, cmd *codec.Command)

// handlers holds the engine's half of each command's declaration: what it
// does. Everything else (name, grammar, counter, stats key) is declared once
// in codec's command table; a test checks that every op has a handler here.
var handlers [codec.NumOps]cmdHandler

func init() {
	for op, h := range map[codec.Op]cmdHandler{
		codec.OpPutHeader:          (*conn).putLine,
		codec.OpPut:                (*conn).put,
		codec.OpPeek:               (*conn).peek,
		codec.OpPeekReady:          (*conn).peekReady,
		codec.OpPeekDelayed:        (*conn).peekDelayed,
		codec.OpPeekBuried:         (*conn).peekBuried,
		codec.OpReserve:            (*conn).reserveForever,
		codec.OpReserveWithTimeout: (*conn).reserveWithTimeout,
		codec.OpReserveJob:         (*conn).reserveJob,
		codec.OpDelete:             (*conn).delete,
		codec.OpRelease:            (*conn).release,
		codec.OpBury:               (*conn).bury,
		codec.OpTouch:              (*conn).touch,
		codec.OpKick:               (*conn).kick,
		codec.OpKickJob:            (*conn).kickJob,
		codec.OpUse:                (*conn).use,
		codec.OpWatch:              (*conn).watch,
		codec.OpIgnore:             (*conn).ignore,
		codec.OpListTubes:          (*conn).listTubes,
		codec.OpListTubeUsed:       (*conn).listTubeUsed,
		codec.OpListTubesWatched:   (*conn).listTubesWatched,
		codec.OpStats:              (*conn).stats,
		codec.OpStatsJob:           (*conn).statsJob,
		codec.OpStatsTube:          (*conn).statsTube,
		codec.OpPauseTube:          (*conn).pauseTube,
		codec.OpQuit:               (*conn).quit,
		codec.OpClearTube:          (*conn).clearTube,
		codec.OpListJobs:           (*conn).listJobs,
		codec.OpAuth:               (*conn).auth,
		codec.OpStatsCluster:       (*conn).statsCluster,
	} {
		handlers[op] = h
	}
}

// counted marks the ops the command counters count, from codec's table.
var counted = func() (c [codec.NumOps]bool) {
	for _, s := range codec.Commands() {
		c[s.Op] = s.Counted
	}
	return c
}()

// The counters are indexed by op: the queue must keep enough of them (this
// constant overflows, and the build fails, if it does not).
const _ = uint(jobs.MaxCommands - codec.NumOps)

// exec executes one decoded command and queues its reply.
func (cn *conn) exec(cmd *codec.Command) {
	if cn.srv.verbose >= 2 {
		cn.traceCommand(cmd)
	}
	if cn.gate(cmd) {
		return
	}
	if counted[cmd.Op] {
		cn.sess.Count(int(cmd.Op))
	}
	if cmd.Err != nil {
		mark := len(cn.out)
		cn.out = codec.AppendError(cn.out, cmd.Err.(codec.WireError))
		cn.done(mark, 0, "")
		return
	}
	if h := handlers[cmd.Op]; h != nil {
		h(cn, cmd)
		return
	}
	mark := len(cn.out)
	cn.out = append(cn.out, codec.InternalError...)
	cn.srv.log.Error().Stringer("op", cmd.Op).Msg("no handler for a decoded command")
	cn.done(mark, 0, "")
}

// Token authentication. With Config.AuthTokens set, a connection must send
// "auth <token>" before anything else: until then every command but auth and
// quit is answered UNAUTHORIZED and not executed (nor counted), and a put's
// body is swallowed unread, so it can never be parsed as commands. After
// MaxAuthFailures wrong tokens the connection is closed and the attempt
// logged, without the token. A client whose TLS certificate was verified
// against the client CA needs no token.

// MaxAuthFailures is how many wrong tokens a connection may send before it
// is closed.
const MaxAuthFailures = 3

// gate answers a command from a connection that has not authenticated yet,
// and reports whether it did (the command must then not run).
func (cn *conn) gate(cmd *codec.Command) bool {
	if cn.authed || cmd.Op == codec.OpAuth || cmd.Op == codec.OpQuit {
		return false
	}
	if cmd.Op == codec.OpPutHeader && cmd.Err == nil {
		cn.rx.dec.DropBody()
	}
	mark := len(cn.out)
	cn.out = append(cn.out, codec.Unauthorized...)
	cn.done(mark, 0, "")
	return true
}

// auth checks a token. On a server without tokens any token is accepted,
// so that a client configured with one works against an open server too.
func (cn *conn) auth(cmd *codec.Command) {
	mark := len(cn.out)
	if len(cn.srv.tokens) == 0 || cn.srv.tokens.Match(cmd.Token) {
		cn.authed = true
		cn.out = append(cn.out, codec.Authenticated...)
		cn.done(mark, 0, "")
		return
	}
	cn.authFailures++
	cn.out = append(cn.out, codec.Unauthorized...)
	cn.done(mark, 0, "")
	if cn.authFailures >= MaxAuthFailures {
		cn.srv.log.Warn().Int("fd", int(cn.fd)).Str("remote_addr", cn.remoteAddr()).Int("failures", int(cn.authFailures)).
			Msg("closing a connection after repeated wrong auth tokens")
		cn.quitting = true
	}
}

// remoteAddr is the peer's address for the logs ("" when unknown).
// The transport knows it (gnet keeps it; tlsConn asks its socket).
func (cn *conn) remoteAddr() string {
	if ra, ok := cn.gc.(interface{ RemoteAddr() net.Addr }); ok {
		if a := ra.RemoteAddr(); a != nil {
			return a.String()
		}
	}
	return ""
}
