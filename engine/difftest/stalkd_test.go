package difftest

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
)

// startStalkd starts stalkd in-process on 127.0.0.1:0 with the given maximum
// job size (0: the default, as for the reference) and stops it when the test
// ends. Its warnings and errors go to the test log.
func startStalkd(t *testing.T, maxJob uint32) target {
	t.Helper()
	cfg := engine.Config{
		Addr:       "127.0.0.1:0",
		MaxJobSize: maxJobOrDefault(maxJob),
		Logger:     zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	srv, err := engine.Start(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		require.NoError(t, srv.Stop(ctx))
	})
	return target{name: "stalkd", addr: srv.Addr().String(), version: engine.ProtocolVersion}
}
