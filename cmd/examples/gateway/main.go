package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/engine/node"
)

// config is what the flags say.
type config struct {
	httpAddr, beanstalkAddr, dir, tube string
	syncEvery, work                    time.Duration
	workers, failEvery, maxFailures    int
	maxJobSize, load, clients          int
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.StringVar(&c.httpAddr, "http", "127.0.0.1:8080", "HTTP listen address")
	fs.StringVar(&c.beanstalkAddr, "beanstalk", "", "also serve the queue on this beanstalk address")
	fs.StringVar(&c.dir, "dir", "", "journal directory (persistent queue)")
	fs.DurationVar(&c.syncEvery, "f", 0, "fsync within this interval instead of before each acknowledgement")
	fs.StringVar(&c.tube, "tube", "jobs", "tube the in-process workers take jobs from")
	fs.IntVar(&c.workers, "workers", 4, "in-process handlers running at once")
	fs.DurationVar(&c.work, "work", 0, "simulated work per job")
	fs.IntVar(&c.failEvery, "fail-every", 0, "make every Nth job fail once")
	fs.IntVar(&c.maxFailures, "max-failures", embed.DefaultMaxFailures, "bury a job on its Nth failure")
	fs.IntVar(&c.maxJobSize, "z", engine.DefaultMaxJobSize, "largest job body in bytes")
	fs.IntVar(&c.load, "load", 0, "run N requests against the gateway, print latencies and exit")
	fs.IntVar(&c.clients, "c", 16, "concurrent HTTP clients of -load")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.workers < 1 || c.clients < 1 || c.load < 0 || c.failEvery < 0 {
		return c, errors.New("-workers and -c must be at least 1, -load and -fail-every not negative")
	}
	return c, nil
}

func main() {
	log := zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).With().Timestamp().Str("component", "cmd").Logger()
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, log); err != nil {
		log.Error().Err(err).Msg("gateway failed")
		os.Exit(1)
	}
}

// run wires the queue, its workers, the HTTP endpoint and (optionally) the
// beanstalk port, and tears them down in reverse order when ctx ends.
func run(ctx context.Context, c config, log zerolog.Logger) error {
	q, err := embed.Open(embed.Options{
		Dir: c.dir, SyncInterval: c.syncEvery, MaxJobSize: c.maxJobSize, Logger: log,
	})
	if err != nil {
		return err
	}
	defer q.Close()

	if c.beanstalkAddr != "" {
		n, err := node.Start(ctx, node.Config{Queue: q, Engine: engine.Config{Addr: c.beanstalkAddr}, Logger: log})
		if err != nil {
			return err
		}
		log.Info().Str("addr", n.Addr().String()).Msg("serving beanstalk")
		defer stopWithin(n.Stop, 5*time.Second)
	}

	gw := newGateway(q, c)
	w, err := q.StartWorker(gw.handle, embed.WorkerOptions{
		Tubes: []string{c.tube}, Concurrency: c.workers, MaxFailures: c.maxFailures, Logger: log,
	})
	if err != nil {
		return err
	}
	defer stopWithin(w.Stop, 10*time.Second)

	ln, err := net.Listen("tcp", c.httpAddr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: gw.routes(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer stopWithin(hs.Shutdown, 5*time.Second)
	log.Info().Str("addr", ln.Addr().String()).Str("tube", c.tube).Int("workers", c.workers).
		Bool("persistent", c.dir != "").Msg("gateway listening")

	if c.load > 0 {
		return runLoad(ctx, gw, "http://"+ln.Addr().String(), c)
	}
	<-ctx.Done()
	log.Info().Msg("shutting down")
	return nil
}

// stopWithin calls stop with a context that ends after d.
func stopWithin(stop func(context.Context) error, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_ = stop(ctx)
}
