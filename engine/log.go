package engine

import (
	"bytes"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/codec"
)

// gnetLogger routes gnet's own logging into zerolog. gnet's info and debug
// chatter (start-up banners, loop exits) goes to trace level.
type gnetLogger struct{ l zerolog.Logger }

func (g gnetLogger) Debugf(format string, args ...any) { g.l.Trace().Msgf(format, args...) }
func (g gnetLogger) Infof(format string, args ...any)  { g.l.Trace().Msgf(format, args...) }
func (g gnetLogger) Warnf(format string, args ...any)  { g.l.Warn().Msgf(format, args...) }
func (g gnetLogger) Errorf(format string, args ...any) { g.l.Error().Msgf(format, args...) }
func (g gnetLogger) Fatalf(format string, args ...any) {
	// gnet calls Fatalf only where it would otherwise give up; never exit
	// the embedding process for it.
	g.l.Error().Msg(fmt.Sprintf(format, args...))
}

// traceCommand logs a decoded command (-V -V), like the reference's
// "<FD command NAME".
func (cn *conn) traceCommand(cmd *codec.Command) {
	ev := cn.srv.log.Trace().Int("fd", cn.fd)
	switch {
	case cmd.Op == codec.OpPut: // "<FD job ID": a body has arrived
		ev.Uint64("job", cn.putID).Int("bytes", len(cmd.Body)).Msg("job")
		return
	case cmd.Op != codec.OpNone:
		ev = ev.Str("command", cmd.Op.Prefix())
	default:
		ev = ev.Str("command", cmd.Matched.Prefix())
	}
	ev.Msg("command")
}

// traceReply logs the first line of a reply (-V -V), like the reference's
// ">FD reply TEXT".
func (cn *conn) traceReply(b []byte, seq uint64) {
	line := b
	if i := bytes.IndexByte(line, '\r'); i >= 0 {
		line = line[:i]
	}
	ev := cn.srv.log.Trace().Int("fd", cn.fd).Bytes("reply", line)
	if seq != 0 {
		ev = ev.Uint64("awaits-commit", seq)
	}
	ev.Msg("reply")
}
