package engine

import (
	"context"
	"time"
)

// drainPoll is how often Stop re-examines connections whose replies are not
// all written yet.
const drainPoll = 5 * time.Millisecond

// closeGrace is how long Stop still waits for gnet to close every connection
// once its context has expired.
const closeGrace = time.Second

// Stop shuts the server down gracefully: it closes the listener (new
// clients are refused by the kernel) and stops executing (commands not yet
// executed are dropped), waits until every reply already due is written (including
// replies waiting for a journal commit), then closes all connections -
// which returns their reserved jobs to ready; connections taken with Adopt
// are handed back open instead, see adopt.go - and, if the Server created
// the queue, stops the queue's timers. Clients blocked in reserve are
// disconnected without a reply. When ctx expires first, Stop closes
// everything at once and returns ctx.Err(). Stop is idempotent.
func (s *Server) Stop(ctx context.Context) error {
	var err error
	s.stopOnce.Do(func() { err = s.stop(ctx) })
	return err
}

func (s *Server) stop(ctx context.Context) error {
	s.stopping.Store(true)
	close(s.stopCh)
	s.serveOnce.Do(func() {}) // waits for a Serve in progress; no Serve after
	served := s.servedFlag.Load()
	// New clients are refused by the kernel from now.
	if s.plain != nil {
		s.plain.close(served)
	}
	if s.tls != nil {
		s.tls.acc.close(served)
	}
	var err error
	if served {
		err = s.drain(ctx)
		s.detachAdopted(ctx)
		// Client.Stop closes every connection (OnClose returns their
		// reserved jobs) and waits for the loops to exit; so does
		// closing the TLS connections.
		go func() {
			_ = s.cli.Stop()
			if s.tls != nil {
				s.tls.closeAll()
			}
			close(s.done)
		}()
	} else {
		close(s.done)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		if err == nil {
			err = ctx.Err()
		}
		// Closing what is left takes no I/O wait; give gnet a moment to
		// finish so that nothing runs on after Stop returns.
		select {
		case <-s.done:
		case <-time.After(closeGrace):
		}
	}
	if s.stopQueue != nil {
		s.stopQueue()
		<-s.queueDone
	}
	fin := make(chan struct{})
	go func() { s.finishers.Wait(); close(fin) }()
	select {
	case <-fin:
	case <-ctx.Done():
		if err == nil {
			err = ctx.Err()
		}
	}
	return err
}

// drain waits until no connection has replies left to write, or ctx ends.
func (s *Server) drain(ctx context.Context) error {
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	for {
		if s.reg.wakeBusy() == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
			return nil
		case <-t.C:
		}
	}
}
