// Package inproc starts stalkd inside the test process: the protocol
// server alone (Start, package engine) or a whole node (StartNode, package
// engine/node: what the daemon runs). It is the part of the wire-test kit
// (package enginetest) that imports them, apart so that engine's own tests
// can use the rest of the kit.
package inproc

import (
	"context"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/node"
)

// Start starts stalkd in-process with cfg and stops it when the test ends.
// An empty Addr is 127.0.0.1:0 (a free port); a zero Logger logs warnings
// and errors to the test's output.
func Start(t testing.TB, cfg engine.Config) *engine.Server {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if !cfg.Logger.Error().Enabled() && cfg.Logger.GetLevel() != zerolog.Disabled { // the zero Logger
		cfg.Logger = zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	}
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Timeout)
	defer cancel()
	srv, err := engine.Start(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), enginetest.Timeout)
		defer cancel()
		require.NoError(t, srv.Stop(ctx))
	})
	return srv
}

// StartNode starts a node (package engine/node: the server the daemon
// runs, with its admin port if cfg.Admin.Addr is set) in-process and stops
// it when the test ends. An empty Engine.Addr is 127.0.0.1:0; a zero
// Logger logs warnings and errors to the test's output.
func StartNode(t testing.TB, cfg node.Config) *node.Node {
	t.Helper()
	if cfg.Engine.Addr == "" {
		cfg.Engine.Addr = "127.0.0.1:0"
	}
	if !cfg.Logger.Error().Enabled() && cfg.Logger.GetLevel() != zerolog.Disabled { // the zero Logger
		cfg.Logger = zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	}
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Timeout)
	defer cancel()
	n, err := node.Start(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), enginetest.Timeout)
		defer cancel()
		require.NoError(t, n.Stop(ctx))
	})
	return n
}
