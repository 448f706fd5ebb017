package engine

import (
	"net"

	"github.com/stalkd/stalkd/codec"
)

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
