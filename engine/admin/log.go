package admin

import (
	"net/http"

	"github.com/rs/zerolog"
)

// logAction starts the info-level log line of an action, naming who asked.
func (s *Server) logAction(r *http.Request, action string) *zerolog.Event {
	return s.log.Info().Str("action", action).Str("remote_addr", r.RemoteAddr)
}
