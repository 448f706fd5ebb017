package engine

import (
	"crypto/sha256"
	"crypto/subtle"

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

// tokenSet holds the accepted tokens as SHA-256 digests, so that every
// comparison takes the same time whatever the token's length or content.
type tokenSet [][sha256.Size]byte

func newTokenSet(tokens []string) tokenSet {
	ts := make(tokenSet, 0, len(tokens))
	for _, t := range tokens {
		if t != "" {
			ts = append(ts, sha256.Sum256([]byte(t)))
		}
	}
	return ts
}

// match reports whether tok is one of the tokens, comparing against every
// one of them in constant time.
func (ts tokenSet) match(tok []byte) bool {
	d := sha256.Sum256(tok)
	ok := 0
	for i := range ts {
		ok |= subtle.ConstantTimeCompare(ts[i][:], d[:])
	}
	return ok == 1
}

// gate answers a command from a connection that has not authenticated yet,
// and reports whether it did (the command must then not run).
func (cn *conn) gate(cmd *codec.Command) bool {
	if cn.authed || cmd.Op == codec.OpAuth || cmd.Op == codec.OpQuit {
		return false
	}
	if cmd.Op == codec.OpPutHeader && cmd.Err == nil {
		cn.dec.DropBody()
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
	if len(cn.srv.tokens) == 0 || cn.srv.tokens.match(cmd.Token) {
		cn.authed = true
		cn.out = append(cn.out, codec.Authenticated...)
		cn.done(mark, 0, "")
		return
	}
	cn.authFailures++
	cn.out = append(cn.out, codec.Unauthorized...)
	cn.done(mark, 0, "")
	if cn.authFailures >= MaxAuthFailures {
		cn.srv.log.Warn().Int("fd", cn.fd).Str("remote_addr", cn.remoteAddr()).Int("failures", cn.authFailures).
			Msg("closing a connection after repeated wrong auth tokens")
		cn.quitting = true
	}
}

// remoteAddr is the peer's address for the logs ("" when unknown).
func (cn *conn) remoteAddr() string {
	if cn.remote != nil {
		return cn.remote.String()
	}
	return ""
}
