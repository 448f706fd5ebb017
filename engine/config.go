package engine

import (
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// Defaults used for the zero values of Config.
const (
	// DefaultPort is the protocol's port.
	DefaultPort = "11300"
	// DefaultAddr listens on every interface, IPv4 and IPv6, on the
	// protocol's port.
	DefaultAddr = ":" + DefaultPort
	// DefaultMaxJobSize, MaxJobSizeLimit and MaxJobSizeZero are codec's
	// (which owns the setting's meaning, see codec.MaxJobSize), here for
	// the programs that configure an engine.
	DefaultMaxJobSize = codec.DefaultMaxJobSize
	MaxJobSizeLimit   = codec.MaxJobSizeLimit
	MaxJobSizeZero    = codec.MaxJobSizeZero
	// DefaultSlowReaderLimit bounds the replies a connection may have queued
	// (written but not yet read by the client) before its commands wait.
	DefaultSlowReaderLimit = 1 << 20
	// DefaultInboundSlack is added to the maximum job size to bound what a
	// connection may send while its commands are held back (blocked in
	// reserve, or stalled as a slow reader).
	DefaultInboundSlack = 16 << 20
	// DefaultKeepAlive is the TCP keep-alive idle time of accepted
	// connections.
	DefaultKeepAlive = time.Minute
	// DefaultBinlogMaxSize is what the stats document reports as
	// binlog-max-size when the Backend has no BinlogStats hook: the
	// reference's default -s (a program with a journal reports its own).
	DefaultBinlogMaxSize = 10 << 20
)

// BinlogStats is the journal's part of the stats document.
type BinlogStats struct {
	OldestIndex, CurrentIndex       int64
	RecordsMigrated, RecordsWritten int64
	// MaxSize is the configured file size (the -s value), reported even
	// without a journal.
	MaxSize int64
}

// Backend is what a Server serves: the queue (with its journal, if any) and
// the journal's figures for the stats document. Each is given once, to
// Serve (Start serves the zero Backend). The zero value is usable: a fresh
// in-memory queue whose timers the Server drives.
type Backend struct {
	// Queue is the queue to serve. Nil: the Server creates one with default
	// settings, drives its timers (Queue.Run) and stops them in Stop. A
	// caller that passes its own Queue owns it and must run Queue.Run
	// itself. The Server subscribes to the queue's journal commits
	// (Queue.Subscribe) to send the replies that wait for them.
	Queue *jobs.Queue
	// BinlogStats, if set, supplies the binlog-* fields of the stats
	// document; nil reports zeros and DefaultBinlogMaxSize. It is called
	// from event loops, concurrently.
	BinlogStats func() BinlogStats
}

// Config configures a Server: how it listens and talks. What it serves is
// the Backend given to Serve. The zero value is usable: it listens on
// DefaultAddr. Listen and Start read the Config once and never modify it.
type Config struct {
	// Addr is where to listen: "host:port" (":0" picks a free port; an empty
	// host means every interface, IPv4 and IPv6) or "unix:/path" for a Unix
	// socket (a stale socket file at the path is removed; any other file is
	// an error). Empty means DefaultAddr.
	Addr string
	// MaxJobSize is the largest job body accepted (the -z flag); 0 means
	// DefaultMaxJobSize and MaxJobSizeZero means 0. Other values above
	// MaxJobSizeLimit are refused.
	MaxJobSize uint32

	// Logger receives the server's logs; its level is the only verbosity
	// control: debug logs accepts and closes, trace also every command and
	// reply (nothing is logged per command above trace). The zero Logger
	// discards everything.
	Logger zerolog.Logger
	// Version is the protocol version the stats document reports; empty
	// means ProtocolVersion (tests set another to tell servers apart).
	Version string

	// EventLoops is the number of gnet event loops; 0 means one per CPU.
	EventLoops int
	// SlowReaderLimit bounds the reply bytes a connection may have queued;
	// past it the connection's commands wait until the client reads. 0
	// means DefaultSlowReaderLimit.
	SlowReaderLimit int
	// InboundLimit bounds the bytes a client may send while its commands
	// are held back; past it the connection is closed with a warning. 0
	// means MaxJobSize + DefaultInboundSlack.
	InboundLimit int
	// MaxConns caps simultaneous connections: more are closed as soon as
	// they are accepted (with a warning at most once a second). 0 means no
	// cap. Running out of file descriptors only refuses connections too.
	MaxConns int
	// KeepAlive is the TCP keep-alive idle time; 0 means DefaultKeepAlive,
	// negative disables keep-alive.
	KeepAlive time.Duration
	// TickInterval is how often stalled connections (slow readers) are
	// re-examined; 0 means 10ms. Replies waiting for a journal commit are
	// not polled: the commit wakes them.
	TickInterval time.Duration

	// AuthTokens, when not empty, turns authentication on: a connection
	// must send "auth <token>" with one of them before any other command
	// (see exec.go). Empty strings are ignored.
	AuthTokens []string

	// ClusterStats, if set, supplies the stats-cluster document of a
	// cluster member (stats_yaml.go formats it); nil answers "standalone". Called
	// from event loops, concurrently: it must not wait.
	ClusterStats func() cluster.Status

	// Network limits (see also MaxConns), an inherited listener, TLS.

	// Listener, if set, is served instead of binding Addr: a listening TCP
	// or Unix stream socket that the caller opened or inherited (systemd
	// socket activation). The Server closes it in Stop; a Unix socket's
	// file is left in place.
	Listener net.Listener

	// IdleTimeout closes a connection that has sent nothing for this long,
	// except while a reserve of its own is waiting (its idle time starts
	// again when the reserve ends). 0 means never.
	IdleTimeout time.Duration
	// StalledInboundLimit bounds the bytes a client may send while its
	// commands wait for it to read its replies (past SlowReaderLimit); past
	// it the connection is closed. 0 means twice MaxJobSize plus 256 KiB.
	StalledInboundLimit int
	// HeldBudget bounds the memory held, across all connections, for
	// clients that do not keep up: input buffered while their commands wait
	// and unread replies of stalled ones. A connection whose share grows
	// while the total is past it is closed. 0 means DefaultHeldBudget.
	HeldBudget int64
	// TLSAddr, if set, adds a listener ("host:port") that speaks the
	// protocol inside TLS, with TLSConfig (required with it; the Server
	// raises its MinVersion to TLS 1.2). Set Addr to NoPlainListener for a
	// TLS-only server.
	TLSAddr   string
	TLSConfig *tls.Config
}

// NoPlainListener, as Config.Addr, turns the plain listener off (a
// TLS-only server).
const NoPlainListener = "none"

// withDefaults returns c with every zero field replaced by its default, or
// an error for a value out of range.
func (c Config) withDefaults() (Config, error) {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	var ok bool
	if c.MaxJobSize, ok = codec.MaxJobSize(c.MaxJobSize); !ok {
		return c, errors.New("engine: MaxJobSize above 1073741824")
	}
	if c.Version == "" {
		c.Version = ProtocolVersion
	}
	if c.SlowReaderLimit <= 0 {
		c.SlowReaderLimit = DefaultSlowReaderLimit
	}
	if c.InboundLimit <= 0 {
		c.InboundLimit = int(c.MaxJobSize) + DefaultInboundSlack
	}
	if c.KeepAlive == 0 {
		c.KeepAlive = DefaultKeepAlive
	}
	if c.TickInterval <= 0 {
		c.TickInterval = 10 * time.Millisecond
	}
	if c.StalledInboundLimit <= 0 {
		c.StalledInboundLimit = 2*int(c.MaxJobSize) + stalledInboundSlack
	}
	if c.HeldBudget <= 0 {
		c.HeldBudget = DefaultHeldBudget
	}
	if c.IdleTimeout < 0 {
		return c, errors.New("engine: negative IdleTimeout")
	}
	if c.EventLoops < 0 || c.MaxConns < 0 {
		return c, errors.New("engine: negative EventLoops or MaxConns")
	}
	return c, nil
}
