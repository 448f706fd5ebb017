package admin

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine/internal/token"
	"github.com/stalkd/stalkd/jobs"
)

// Server is the admin listener. Create it with Start, end it with Stop. Its
// methods are safe for concurrent use.
type Server struct {
	opts    Options
	q       *jobs.Queue
	fwd     PolicyForwarder // set (and q nil) on a follower's forwarded policy change
	mfwd    MoveForwarder   // set (and q nil) on a follower's forwarded redrive or move
	log     zerolog.Logger
	ln      net.Listener
	http    *http.Server
	local   bool // loopback or Unix-socket listener: mutations may be allowed
	unix    bool
	tokens  token.Set // Options.Tokens; empty: no bearer tokens
	reg     *prometheus.Registry
	hist    *history
	handler http.Handler

	commits   *commits   // shared by the per-request copies
	stopOnce  *sync.Once // a pointer: api copies the Server per request
	stopHist  context.CancelFunc
	serveDone chan struct{}
}

// Start listens on opts.Addr and serves in the background until Stop.
func Start(opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ln, isUnix, err := listen(opts.Addr)
	if err != nil {
		return nil, err
	}
	s := newServer(opts, ln, isUnix)
	go s.serve()
	s.log.Info().Str("addr", ln.Addr().String()).Bool("mutations", s.mutable()).
		Bool("bearer_tokens", !s.tokens.Empty()).Msg("admin listener started")
	return s, nil
}

// newServer builds the Server around a bound listener.
func newServer(opts Options, ln net.Listener, isUnix bool) *Server {
	s := &Server{
		opts: opts, q: opts.Queue, ln: ln, unix: isUnix,
		log:       opts.Logger.With().Str("component", "admin").Logger(),
		local:     isUnix || isLoopback(ln.Addr()),
		tokens:    token.NewSet(opts.Tokens),
		serveDone: make(chan struct{}),
		stopOnce:  new(sync.Once),
		commits:   new(commits),
	}
	s.reg = newRegistry(s)
	s.hist = newHistory(historySize)
	ctx, cancel := context.WithCancel(context.Background())
	s.stopHist = cancel
	go s.hist.run(ctx, s.current, opts.SampleInterval)
	s.handler = s.routes()
	s.http = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(errorLogWriter{s.log}, "", 0),
	}
	return s
}

func (s *Server) serve() {
	defer close(s.serveDone)
	err := s.http.Serve(s.ln)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Error().Err(err).Msg("admin listener failed")
	}
}

// current is the queue to show now: Options.Queue, or in cluster mode the
// queue this node leads (nil on a follower).
func (s *Server) current() *jobs.Queue {
	if s.opts.Cluster != nil {
		return s.opts.Cluster.Queue()
	}
	return s.q
}

// Addr returns the bound address (port 0 resolved).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL returns the base URL of a TCP listener ("http://127.0.0.1:11380").
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Handler returns the server's HTTP handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.handler }

// Stop stops accepting, waits for requests in flight until ctx ends, and
// closes the listener. It is idempotent.
func (s *Server) Stop(ctx context.Context) error {
	var err error
	s.stopOnce.Do(func() {
		s.stopHist()
		err = s.http.Shutdown(ctx)
		if err != nil {
			_ = s.http.Close()
		}
		<-s.serveDone
		s.log.Info().Msg("admin listener stopped")
	})
	return err
}

// listen binds "host:port" or "unix:/path".
func listen(addr string) (net.Listener, bool, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if fi, err := os.Lstat(path); err == nil {
			if fi.Mode()&os.ModeSocket == 0 {
				return nil, true, fmt.Errorf("admin: %s exists and is not a socket", path)
			}
			_ = os.Remove(path)
		}
		ln, err := net.Listen("unix", path)
		if err != nil {
			return nil, true, fmt.Errorf("admin: %w", err)
		}
		return ln, true, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, false, fmt.Errorf("admin: %w", err)
	}
	return ln, false, nil
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
