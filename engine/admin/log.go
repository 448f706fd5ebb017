package admin

import (
	"net/http"
	"strings"

	"github.com/rs/zerolog"
)

// logAction starts the info-level log line of an action, naming who asked.
func (s *Server) logAction(r *http.Request, action string) *zerolog.Event {
	return s.log.Info().Str("action", action).Str("remote_addr", r.RemoteAddr)
}

// errorLogWriter sends net/http's own error log (bad requests it answers by
// itself, handler panics) to the program's log at warning level.
type errorLogWriter struct{ log zerolog.Logger }

func (w errorLogWriter) Write(p []byte) (int, error) {
	w.log.Warn().Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}
