package embed

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// ioTimeout bounds every wait: generous, for a loaded CI box.
const ioTimeout = enginetest.Timeout

// testLogger logs to the test's output.
func testLogger(t testing.TB) zerolog.Logger { return enginetest.Logger(t) }
