// Package front is a cluster member's client port: the third connection
// runtime beside the engine's gnet event loops and its TLS goroutines.
// Every client of a cluster connects to a Front, which carries the
// connection's commands to the engine of the current leader and the
// leader's replies back, byte for byte, so that a client of any member
// sees what a single server would send. When the leader changes, the
// connection is carried to the next one (carry.go): what was in flight is
// answered INTERNAL_ERROR, the client's auth, use and watch list are
// replayed, and it goes on. On the leader itself a new plain connection
// is offered to the leader's engine first (Config.Direct, direct.go), which
// serves it as a single server would and hands it back when the node
// stops leading; from then on it is carried like any other.
//
//	f := front.Start(front.Config{Listener: ln, Leader: leaderAddr, MaxJobSize: size})
//	defer f.Stop(ctx)
//
// # What it owns, what it may import
//
// It owns the client sockets of a cluster member (accept, the bounded TLS
// handshake of a listener from tls.NewListener, connection caps) and one
// upstream connection per client to the leader's engine, dialed at the
// client's first command (an idle client costs the leader nothing). It frames
// commands with codec's framing-only Decoder (which never copies a put body:
// the front forwards the bytes it read) and replies with
// codec.ReplyBodySize, so it knows how many replies each command is owed
// without understanding them. It imports codec, engine/tlscert and zerolog: not engine (it talks
// to the leader's engine over TCP, as any client does), not wal/raft (the
// program hands it Config.Leader) and not jobs.
//
// The files: front.go (Config, Start, Stop), conns.go (accepting and
// serving client connections), leader.go (finding and dialing the leader),
// carry.go (a carried connection's session), commands.go (reading and
// framing the client's commands), replies.go (the leader's replies),
// failover.go (moving a connection to the next leader), direct.go
// (connections the leader's engine serves itself).
//
// # Concurrency
//
// One goroutine accepts; per connection, one reads the client's commands,
// one carries them to the leader (and the connection to the next leader),
// one reads the leader's replies and writes them to the client (a
// direct connection has none until it is handed back: the engine's event
// loops serve it, and Config.Direct's back may run on one of them). Config
// is copied by Start and never modified; Stop and Addr are safe from any
// goroutine.
package front
