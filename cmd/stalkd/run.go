package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine/node"
	"github.com/stalkd/stalkd/wal"
)

// stopTimeout bounds a graceful stop: answering what is in flight.
const stopTimeout = 5 * time.Second

// run serves until a signal stops it. The node (package engine/node)
// starts in the reference's order: bind, -u (AfterBind), journal, replay,
// serve. root is the program's logger, without a component.
func run(o options, root zerolog.Logger) error {
	mode := "cmd"
	if o.cluster.ID != "" {
		mode = "cluster"
	}
	log := componentLogger(root, mode)
	cfg, sigs, err := prelude(o, root, log)
	if sigs != nil {
		defer signal.Stop(sigs)
	}
	if err != nil {
		return err
	}
	n, err := node.Start(context.Background(), cfg)
	if err != nil {
		return startError(err)
	}
	err = waitSignals(n, sigs, log)
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	return errors.Join(err, n.Stop(ctx))
}

// prelude checks the -b directory, subscribes the signals, reads the token
// file and takes a socket systemd passed, and returns the node's Config.
// The signal channel is returned even with an error: the caller stops it.
func prelude(o options, root, log zerolog.Logger) (node.Config, chan os.Signal, error) {
	cfg := o.config()
	cfg.Logger = root
	if d := o.journal.Dir; d != "" {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return cfg, nil, &exitError{exitWALDir, fmt.Errorf("-b %s: not a directory", d)}
		}
	}
	signal.Ignore(syscall.SIGPIPE)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
	if cfg.Reloads() {
		signal.Notify(sigs, syscall.SIGHUP)
	}
	if o.authTokenFile != "" {
		tokens, err := readTokens(o.authTokenFile)
		if err != nil {
			return cfg, sigs, &exitError{exitUsage, err}
		}
		log.Info().Int("tokens", len(tokens)).Msg("token authentication on")
		cfg.Engine.AuthTokens = tokens
	}
	if o.cluster.ID == "" {
		ln, err := inheritedListener(o, log)
		if err != nil {
			return cfg, sigs, &exitError{exitSocket, err}
		}
		cfg.Engine.Listener = ln
	}
	cfg.Engine.MaxConns = maxConns(o.net.maxConns, raiseFileLimit(log))
	if o.user != "" {
		cfg.AfterBind = func() error { return becomeUser(o.user) }
	}
	return cfg, sigs, nil
}

// startError gives a failed start its exit code, as the reference's.
func startError(err error) error {
	var ee *exitError
	var ce *node.ConfigError
	switch {
	case errors.As(err, &ee): // -u
		return err
	case errors.As(err, &ce):
		return &exitError{exitUsage, err}
	case errors.Is(err, node.ErrBind):
		return &exitError{exitSocket, err}
	case errors.Is(err, wal.ErrLocked), errors.Is(err, node.ErrClusterDir):
		return &exitError{exitWALDir, err}
	case errors.Is(err, wal.ErrCorrupt):
		return fmt.Errorf("%w (start with -S to move the damaged files aside and keep what is readable)", err)
	}
	return err
}

// waitSignals handles signals until one asks to stop (nil), or the server
// dies (an error saying how). SIGUSR1 drains; SIGHUP (subscribed only with
// something to reload) reloads the TLS certificates, the node TLS and the
// policy file.
func waitSignals(n *node.Node, sigs <-chan os.Signal, log zerolog.Logger) error {
	for {
		select {
		case sig := <-sigs:
			switch sig {
			case syscall.SIGHUP:
				_ = n.Reload() // each failure is logged, and keeps what is in use
			case syscall.SIGUSR1:
				n.Drain()
			default:
				log.Info().Stringer("signal", sig).Msg("stopping")
				return nil
			}
		case <-n.Done():
			if err := n.Err(); err != nil {
				return fmt.Errorf("server failed: %w", err)
			}
			return errors.New("server stopped on its own")
		}
	}
}
