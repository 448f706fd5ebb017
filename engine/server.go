package engine

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// Server is a beanstalk protocol server on gnet. Create it with Start (or
// Listen then Serve) and end it with Stop. All methods are safe for
// concurrent use.
type Server struct {
	cfg     Config
	log     zerolog.Logger
	verbose int
	spec    listenSpec

	// Set once before serving starts; read-only afterwards.
	queue   *jobs.Queue
	binlog  func() BinlogStats
	proc    procInfo
	commits broadcast // closed and renewed on every journal commit

	eng  gnet.Engine // set in OnBoot
	addr net.Addr    // set in OnBoot

	booted  chan struct{} // closed when the listener is bound
	serveCh chan struct{} // closed by Serve: OnBoot lets the loops start
	abortCh chan struct{} // closed by Stop before Serve: OnBoot shuts down
	done    chan struct{} // closed when gnet.Run has returned
	runErr  error         // gnet.Run's result, read after done

	reg        registry
	stopping   atomic.Bool
	serveOnce  sync.Once
	stopOnce   sync.Once
	stopQueue  context.CancelFunc // set when the Server owns the queue
	queueDone  chan struct{}
	finishers  sync.WaitGroup
	servedFlag atomic.Bool
	refusals   atomic.Int64 // connections refused over MaxConns (logged once)
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
	spec, err := parseAddr(cfg.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg: cfg, log: cfg.Logger, verbose: verbosityOf(cfg.Logger), spec: spec,
		proc: loadProcInfo(cfg.Version),
	}
	s.reg.init()
	err = s.boot(ctx, spec.proto)
	if err != nil && spec.fallback != "" && isNoIPv6(err) {
		s.log.Warn().Err(err).Msg("no IPv6 on this host; listening on IPv4 only")
		err = s.boot(ctx, spec.fallback)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// boot runs gnet on proto in a goroutine and waits until it is bound.
func (s *Server) boot(ctx context.Context, proto string) error {
	s.booted = make(chan struct{})
	s.serveCh = make(chan struct{})
	s.abortCh = make(chan struct{})
	s.done = make(chan struct{})
	opts := s.gnetOptions()
	go func(done chan struct{}) {
		s.runErr = gnet.Run(&handler{s: s}, proto, opts...)
		close(done)
	}(s.done)
	select {
	case <-s.booted:
		return nil
	case <-s.done:
		if s.runErr == nil {
			s.runErr = errors.New("engine: gnet stopped before it was bound")
		}
		return s.runErr
	case <-ctx.Done():
		close(s.abortCh)
		<-s.done
		return ctx.Err()
	}
}

// gnetOptions translates the Config into gnet's options.
func (s *Server) gnetOptions() []gnet.Option {
	opts := []gnet.Option{
		gnet.WithReuseAddr(true),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithTicker(true),
		gnet.WithLogger(gnetLogger{s.log}),
	}
	if s.cfg.KeepAlive > 0 {
		opts = append(opts, gnet.WithTCPKeepAlive(s.cfg.KeepAlive))
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
		s.setBackend(b)
		s.servedFlag.Store(true)
		close(s.serveCh)
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

// Done is closed when the server has stopped, after Stop or because gnet
// failed (then Err says why).
func (s *Server) Done() <-chan struct{} { return s.done }

// Err returns why gnet stopped, once Done is closed; nil after a clean Stop.
func (s *Server) Err() error {
	select {
	case <-s.done:
		return s.runErr
	default:
		return nil
	}
}
