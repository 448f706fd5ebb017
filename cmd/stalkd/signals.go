package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/tlscert"
)

// The run/signal path both modes share. A single node and a cluster member
// start the same way (prelude: the -b directory, signals, TLS, the token
// file) and obey the same signals (waitSignals): SIGUSR1 drains, SIGHUP
// reloads the TLS certificates (a member's node TLS too) and the policy
// file, SIGTERM and SIGINT stop. What differs is
// only what serves in between: an engine (run.go) or a front carrying
// clients to the leader (cluster.go).

// daemon is what the prelude sets up.
type daemon struct {
	sigs      chan os.Signal // the signals the daemon obeys; stop it on return
	tlsConfig *tls.Config    // nil without --tls
	certs     *tlscert.CertFiles
	tokens    []string // from --auth-token-file; nil: no authentication
}

// prelude checks the -b directory, subscribes the signals, loads TLS and
// reads the token file (into o.admin.tokens too). The returned daemon's
// sigs is set even with an error: the caller stops it.
func prelude(o *options, log zerolog.Logger) (*daemon, error) {
	d := &daemon{}
	if o.journal.Dir != "" {
		if fi, err := os.Stat(o.journal.Dir); err != nil || !fi.IsDir() {
			return d, &exitError{exitWALDir, fmt.Errorf("-b %s: not a directory", o.journal.Dir)}
		}
	}
	var err error
	if d.sigs, d.tlsConfig, d.certs, err = signalsAndTLS(*o); err != nil {
		return d, err
	}
	if o.authTokenFile != "" {
		if d.tokens, err = readTokens(o.authTokenFile); err != nil {
			return d, &exitError{exitUsage, err}
		}
		log.Info().Int("tokens", len(d.tokens)).Msg("token authentication on")
		o.admin.tokens = d.tokens
	}
	return d, nil
}

// stop unsubscribes the signals.
func (d *daemon) stop() {
	if d.sigs != nil {
		signal.Stop(d.sigs)
	}
}

// signalsAndTLS ignores SIGPIPE, subscribes a channel to the signals the
// server obeys (SIGUSR1, SIGTERM, SIGINT, and SIGHUP when there are TLS
// certificates or a policy file to reload) and loads the TLS settings. The channel is returned
// even with an error: the caller stops it.
func signalsAndTLS(o options) (chan os.Signal, *tls.Config, *tlscert.CertFiles, error) {
	signal.Ignore(syscall.SIGPIPE)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
	if err := o.tls.check(o.addr == plainOff); err != nil {
		return sigs, nil, nil, &exitError{exitUsage, err}
	}
	tlsConfig, certs, err := o.tls.config()
	if err != nil {
		return sigs, nil, nil, err
	}
	if certs != nil || o.policies != nil {
		signal.Notify(sigs, syscall.SIGHUP)
	}
	return sigs, tlsConfig, certs, nil
}

// serving is what waitSignals acts on: how to drain, and the server whose
// death ends the wait (nil: none, a cluster member's front lives on).
type serving struct {
	drain   func()
	drained string         // the log line once drain mode is on
	hup     func()         // more to reload on SIGHUP (a member's node TLS, the policy file); nil: none
	srv     *engine.Server // nil in cluster mode
}

// waitSignals handles signals until one asks to stop (nil), or the server
// dies (an error saying how).
func (d *daemon) waitSignals(s serving, log zerolog.Logger) error {
	var died <-chan struct{}
	if s.srv != nil {
		died = s.srv.Done()
	}
	for {
		select {
		case sig := <-d.sigs:
			switch sig {
			case syscall.SIGHUP: // subscribed only with certificates or a policy file to reload
				if d.certs != nil {
					reloadCerts(d.certs, log)
				}
				if s.hup != nil {
					s.hup()
				}
			case syscall.SIGUSR1:
				s.drain()
				log.Info().Msg(s.drained)
			default:
				log.Info().Stringer("signal", sig).Msg("stopping")
				return nil
			}
		case <-died:
			if err := s.srv.Err(); err != nil {
				return fmt.Errorf("server failed: %w", err)
			}
			return errors.New("server stopped on its own")
		}
	}
}
