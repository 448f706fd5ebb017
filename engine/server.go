package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine/internal/commit"
	"github.com/stalkd/stalkd/engine/internal/listen"
	"github.com/stalkd/stalkd/engine/internal/memreturn"
	"github.com/stalkd/stalkd/engine/internal/ratelog"
	"github.com/stalkd/stalkd/engine/internal/token"
	"github.com/stalkd/stalkd/jobs"
)

// Server is a beanstalk protocol server on gnet. Create it with Start (or
// Listen then Serve) and end it with Stop. All methods are safe for
// concurrent use.
type Server struct {
	cfg     Config
	tokens  token.Set // Config.AuthTokens, hashed
	log     zerolog.Logger
	verbose int
	spec    listen.Spec

	// Set once before serving starts; read-only afterwards.
	queue   *jobs.Queue
	binlog  func() BinlogStats
	proc    procInfo
	commits commit.Broadcast // closed and renewed on every journal commit

	plain *acceptor    // the plain listener, bound by Listen; nil with NoPlainListener
	tls   *tlsServer   // the TLS listener and its connections; nil without TLSAddr
	addr  net.Addr     // the plain listener's address (else the TLS one's)
	cli   *gnet.Client // the event loops, started by Serve

	stopCh chan struct{} // closed when Stop begins
	done   chan struct{} // closed when the server has stopped
	runErr error         // why the server stopped on its own, read after done

	reg        registry
	rxPool     sync.Pool    // *connRx, lent to connections while they execute
	open       atomic.Int64 // connections accepted and not yet closed
	stopping   atomic.Bool
	serveOnce  sync.Once
	stopOnce   sync.Once
	stopQueue  context.CancelFunc // set when the Server owns the queue
	queueDone  chan struct{}
	finishers  sync.WaitGroup
	servedFlag atomic.Bool

	adopted   sync.Map     // *conn -> *adoption: connections taken with Adopt (adopt.go)
	adopting  atomic.Int64 // Adopt calls that took a connection, ever
	detaching atomic.Bool  // Stop is handing adopted connections back

	overCap, noFiles, acceptErrs ratelog.Log // warnings, at most one a second each
	beforeAuth                   ratelog.Log // commands before auth (exec.go)
	heldState                                // memory held for slow clients (budget.go)

	now    func() int64 // the idle clock (ns); tests replace it before Serve
	timers              // the nudger's and the idle sweeper's (nudge.go)
}

// Start listens on cfg.Addr and serves a fresh in-memory queue (the zero
// Backend). It returns once the socket is bound and connections are being
// accepted; ctx bounds only that start-up. To serve a queue of one's own,
// use Listen then Serve.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	s, err := Listen(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.Serve(Backend{}); err != nil {
		_ = s.Stop(context.Background())
		return nil, err
	}
	return s, nil
}

// Listen binds cfg.Addr and returns a Server that holds the socket but
// accepts nothing yet: connecting clients wait in the kernel's backlog until
// Serve. ctx bounds the start-up only.
func Listen(ctx context.Context, cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	var spec listen.Spec
	if cfg.Listener == nil && cfg.Addr != NoPlainListener {
		if spec, err = listen.Parse(cfg.Addr); err != nil {
			return nil, err
		}
	}
	s := &Server{
		cfg: cfg, log: cfg.Logger, verbose: verbosityOf(cfg.Logger), spec: spec,
		proc: loadProcInfo(cfg.Version), tokens: token.NewSet(cfg.AuthTokens),
		stopCh: make(chan struct{}),
		done:   make(chan struct{}),
	}
	s.reg.init()
	start := time.Now()
	s.now = func() int64 { return int64(time.Since(start)) }
	s.newTimer = realTimer
	if err := s.bind(ctx, spec); err != nil {
		if s.plain != nil {
			s.plain.close(false)
		}
		return nil, err
	}
	return s, nil
}

// bind opens the plain listener (or takes Config.Listener) and the TLS
// one.
func (s *Server) bind(ctx context.Context, spec listen.Spec) error {
	ln := s.cfg.Listener
	if ln == nil && s.cfg.Addr != NoPlainListener {
		var err error
		if ln, err = listen.Listen(ctx, spec, s.cfg.KeepAlive); err != nil {
			return err
		}
	}
	if ln != nil {
		a, err := newAcceptor(ln, s.admit)
		if err != nil {
			_ = ln.Close()
			return err
		}
		s.plain, s.addr = a, ln.Addr()
	}
	if s.cfg.TLSAddr == "" {
		if s.plain == nil {
			return errors.New("engine: no listener: the plain one is off and no TLSAddr is set")
		}
		return nil
	}
	t, err := s.listenTLS(ctx)
	if err != nil {
		return err
	}
	s.tls = t
	if s.addr == nil {
		s.addr = t.acc.ln.Addr()
	}
	return nil
}

// TLSAddr returns the TLS listener's address, or nil without one.
func (s *Server) TLSAddr() net.Addr {
	if s.tls == nil {
		return nil
	}
	return s.tls.acc.ln.Addr()
}

// gnetOptions translates the Config into gnet's options. The listener's
// accept already set TCP_NODELAY (Go's default) and keep-alive
// (ListenConfig), so gnet sets neither again.
func (s *Server) gnetOptions() []gnet.Option {
	opts := []gnet.Option{
		gnet.WithTCPNoDelay(gnet.TCPDelay),
		gnet.WithLogger(gnetLogger{s.log}),
	}
	if s.cfg.EventLoops > 0 {
		opts = append(opts, gnet.WithNumEventLoop(s.cfg.EventLoops))
	} else {
		opts = append(opts, gnet.WithMulticore(true))
	}
	return opts
}

// Serve starts accepting connections on the socket bound by Listen, serving
// b. It may be called once; with no queue in b the Server creates one and
// drives its timers.
func (s *Server) Serve(b Backend) error {
	err := errors.New("engine: Serve called twice or after Stop")
	s.serveOnce.Do(func() {
		if s.stopping.Load() {
			return
		}
		cli, cerr := gnet.NewClient(&handler{s: s}, s.gnetOptions()...)
		if cerr == nil {
			cerr = cli.Start()
		}
		if cerr != nil {
			err = fmt.Errorf("engine: starting the event loops: %w", cerr)
			return
		}
		s.setBackend(b)
		s.cli = cli
		s.servedFlag.Store(true)
		if s.plain != nil {
			go s.acceptLoop(s.plain)
		}
		if s.tls != nil {
			go s.acceptLoop(s.tls.acc)
		}
		go s.nudge()
		memreturn.Watch(s.queue, s.stopCh)
		if s.cfg.IdleTimeout > 0 {
			go s.sweepIdle()
		}
		s.logListening()
		err = nil
	})
	return err
}

// setBackend installs the queue and hooks before any connection exists.
func (s *Server) setBackend(b Backend) {
	if b.Queue == nil {
		b.Queue = jobs.New(jobs.Config{})
		ctx, cancel := context.WithCancel(context.Background())
		s.stopQueue, s.queueDone = cancel, make(chan struct{})
		go func() {
			defer close(s.queueDone)
			b.Queue.Run(ctx)
		}()
	}
	s.queue, s.binlog = b.Queue, b.BinlogStats
	b.Queue.Subscribe(s.committed)
	s.proc.start = time.Now()
}

// Addr returns the address the server is bound to, with port 0 resolved.
func (s *Server) Addr() net.Addr { return s.addr }

// Queue returns the queue being served (nil before Serve).
func (s *Server) Queue() *jobs.Queue {
	if !s.servedFlag.Load() {
		return nil
	}
	return s.queue
}

// Done is closed when the server has stopped, after Stop (Err then says
// why, if it stopped on its own).
func (s *Server) Done() <-chan struct{} { return s.done }

// Err returns why the server stopped, once Done is closed; nil after a
// clean Stop.
func (s *Server) Err() error {
	select {
	case <-s.done:
		return s.runErr
	default:
		return nil
	}
}
