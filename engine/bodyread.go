package engine

import (
	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// Large put bodies skip gnet's read buffer where they can. gnet reads the
// socket into its loop's 64 KiB buffer and the decoder copies a body from
// there into the job's own buffer. Once everything gnet read is consumed
// and a body of at least directBodyMin bytes is still due, the connection
// reads the socket itself, straight into the body: one copy, by the
// kernel, as the reference does. A body larger than gnet's buffer always
// takes this path for its rest; a 64 KiB one when it starts late in a
// read. (A smaller gnet buffer would send more of every large body this
// way, but it measured 5% slower on pipelined small puts and no faster on
// 64 KiB ones, whose cost is the page faults of fresh memory.)
//
// This is safe only on gnet's plain connections: their epoll registration
// is level-triggered, so bytes left in the socket (or an end of stream this
// read saw) are reported to gnet again on the next poll, and gnet's own read
// then closes the connection as it would have. A TLS connection's bytes must
// pass through its record layer, so it never reads directly.
const directBodyMin = 4 << 10

// pullBody reads the rest of a pending put body from the socket, while it
// is large and the socket has bytes, and executes the put once its body is
// complete. Call it only when the transport has no buffered input left.
// The read that reaches the end of the data also takes the CRLF after it
// (readv into the decoder's two rooms), so a body arriving whole costs one
// system call.
func (cn *conn) pullBody() {
	rx := cn.rx
	left := rx.dec.BodyLeft()
	if left < directBodyMin {
		return
	}
	if _, plain := cn.gc.(gnet.Conn); !plain {
		return
	}
	for left > 0 {
		// At most a peek window per read: the body's buffer grows as
		// bytes arrive, so a client announcing a huge body and sending
		// little holds little (the decoder's eagerBody rule).
		data, trail := rx.dec.BodyRooms(min(left, peekWindow))
		var n int
		var err error
		if trail == nil {
			n, err = unix.Read(int(cn.fd), data)
		} else {
			iov := [2][]byte{data, trail}
			n, err = unix.Readv(int(cn.fd), iov[:])
		}
		if n <= 0 || err != nil {
			return // nothing yet (EAGAIN), or an end gnet's read will see too
		}
		left -= n
		cmd, ok := rx.dec.Absorb(n)
		if ok {
			rx.cmd = cmd
			cn.exec(&rx.cmd)
			if cn.rx == rx {
				rx.cmd.Name, rx.cmd.Token, rx.cmd.Body = nil, nil, nil
			}
			return
		}
		if n < len(data)+len(trail) {
			return // the socket is most likely empty: let the poller say when it is not
		}
	}
}
