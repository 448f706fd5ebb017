package enginetest

import (
	"testing"

	"github.com/rs/zerolog"
)

// Logger logs to the test's output, at debug level, with timestamps.
func Logger(t testing.TB) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel).With().Timestamp().Logger()
}
