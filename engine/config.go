package engine

import (
	"errors"
	"math"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// Defaults used for the zero values of Config.
const (
	// DefaultAddr listens on every interface, IPv4 and IPv6, on the
	// protocol's port.
	DefaultAddr = ":11300"
	// DefaultMaxJobSize is the reference's default -z.
	DefaultMaxJobSize = 65535
	// MaxJobSizeLimit is the largest -z the reference accepts (1 GiB).
	MaxJobSizeLimit = 1 << 30
	// MaxJobSizeZero asks for a maximum job size of 0 (only empty bodies,
	// as "-z 0" does), which the zero value of Config.MaxJobSize cannot
	// express.
	MaxJobSizeZero = math.MaxUint32
	// DefaultSlowReaderLimit bounds the replies a connection may have queued
	// (written but not yet read by the client) before its commands wait.
	DefaultSlowReaderLimit = 4 << 20
	// DefaultInboundSlack is added to the maximum job size to bound what a
	// connection may send while its commands are held back (blocked in
	// reserve, or stalled as a slow reader).
	DefaultInboundSlack = 16 << 20
	// DefaultKeepAlive is the TCP keep-alive idle time of accepted
	// connections.
	DefaultKeepAlive = time.Minute
	// DefaultBinlogMaxSize is the reference's default -s, reported as
	// binlog-max-size when no BinlogStats hook is given.
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

// Config configures a Server. The zero value is usable: it listens on
// DefaultAddr with a fresh in-memory queue. Listen and Start read the Config
// once and never modify it.
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

	// Queue is the queue to serve. Nil: the Server creates one with default
	// settings, drives its timers (Queue.Run) and stops them in Stop. A
	// caller that passes its own Queue owns it and must run Queue.Run
	// itself.
	Queue *jobs.Queue
	// BinlogStats, if set, supplies the binlog-* fields of the stats
	// document. It is called from event loops, concurrently.
	BinlogStats func() BinlogStats
	// Subscribe, if set, registers a function to be called (from any
	// goroutine) each time the journal commits; the Server uses it to send
	// replies that wait for a commit. Without it such replies are polled on
	// every tick.
	Subscribe func(fn func())

	// Logger receives the server's logs. The zero Logger discards them.
	Logger zerolog.Logger
	// Verbose is the -V count: 1 logs accepts and closes (debug level), 2
	// and more also every command and reply (trace level). Nothing is logged
	// per command at 0.
	Verbose int
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
	// they are accepted (the first refusal is logged as a warning). 0 means
	// no cap. Keep it below the open-file limit: gnet stops the whole
	// server when accept fails for lack of file descriptors.
	MaxConns int
	// KeepAlive is the TCP keep-alive idle time; 0 means DefaultKeepAlive,
	// negative disables keep-alive.
	KeepAlive time.Duration
	// TickInterval is how often stalled connections are re-examined; 0
	// means 10ms.
	TickInterval time.Duration
}

// withDefaults returns c with every zero field replaced by its default, or
// an error for a value out of range.
func (c Config) withDefaults() (Config, error) {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	switch c.MaxJobSize {
	case 0:
		c.MaxJobSize = DefaultMaxJobSize
	case MaxJobSizeZero:
		c.MaxJobSize = 0
	}
	if c.MaxJobSize > MaxJobSizeLimit {
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
	if c.EventLoops < 0 || c.MaxConns < 0 {
		return c, errors.New("engine: negative EventLoops or MaxConns")
	}
	return c, nil
}
