package enginetest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The barrier of the differential tests: "the server has nothing more to
// say" without waiting for a quiet window. A server that has read every byte
// a client sent, and whose event loop then sleeps in epoll_wait, has
// answered everything it will answer to those bytes: both servers run their
// connections on one thread each (beanstalkd has one; stalkd is started
// with one event loop), they write a reply before going back to epoll, and
// a reply still pending to be written would keep epoll_wait from sleeping
// (the socket is writable, the interest level-triggered). The kernel tells
// both facts: the server socket's receive queue (sock_diag), and the
// system call the loop's thread sleeps in (/proc/PID/task/TID/syscall, on
// the epoll descriptor that watches the socket). Linux only.
//
// Only a level-triggered, persistent interest counts as "the epoll
// descriptor that watches the socket" (watchesLevel): the argument above
// holds for nothing else. An edge-triggered watcher reports a socket once
// per change, so a thread asleep on it says nothing about what is pending;
// and the Go runtime's own poller, which watches every socket a net.Conn
// holds, edge-triggered, almost always has a thread asleep. stalkd's
// accept loop accepts on a net.Conn, which the runtime's poller watches,
// and hands the socket to gnet (a dup registered level-triggered with the
// loop's epoll, then the original closed): until the original is closed
// the process holds the socket twice. Counting any watcher, the barrier
// could pick the original descriptor, see a runtime thread asleep in
// epoll_pwait, and return while the loop was still executing the first
// bytes it had read (about 1 run in 150 of TestTranscriptsRecord/pipeline,
// whose first and only step is a long pipeline, came back empty). With
// the filter the original has no watcher, so the barrier waits until it
// is closed or finds the loop's descriptor.
//
// Why the two readings suffice, in that order (the receive queue empty at
// t1, a thread asleep at t2 > t1): only the event loop waits on its epoll
// descriptor, so a thread asleep on it at t2 is the loop's, whichever
// thread the Go scheduler runs it on (gnet does not lock it to one);
// /proc names the call only for a thread off the run queue (a preempted or
// waking one reads "running"), and an epoll_wait with a zero timeout never
// sleeps. The loop read the bytes before t1, so the wait it is in at t2
// began after it had executed them and written their replies. Anything
// queued for the loop before t2 would have woken it: gnet's Wake and task
// queue write its eventfd, whose event waits on the epoll ready list until
// the loop takes it, and ep_poll does not sleep with an event there. The
// replies' bytes are in the client's receive queue once the server's write
// returns: both servers set TCP_NODELAY, and loopback delivers a segment
// in the softirq its send raises. (The server's send queue is not checked
// instead: the client's delayed acknowledgement keeps it non-empty for
// ~40ms after nearly every reply.)
//
// What it does not cover: a reply a timer or another goroutine produces
// later (a TTR, a reserve-with-timeout, a journal commit), which a test
// waits for explicitly; a reply larger than the client's receive buffer,
// which waits for the client to read; and a connection the client has
// half-closed, which stalkd finishes off its event loop: read it to its
// end, or wait for Closed.

// Settle waits until the server process pid (os.Getpid() for one in this
// process) has read every byte sent on c and its event loop sleeps with
// nothing to do, then returns; or as soon as the server has reset the
// connection (closed it with input unread), since it will say nothing more
// on it. It fails after Timeout, and on a system without /proc.
func Settle(c net.Conn, pid int) error {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return fmt.Errorf("settle: %v is not a TCP connection", c.LocalAddr())
	}
	deadline := time.Now().Add(Timeout)
	pause := 50 * time.Microsecond
	for {
		why, err := settled(local, remote, pid)
		if err != nil {
			return err
		}
		if why == "" || reset(c) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("settle: server %d not idle after %v: %s", pid, Timeout, why)
		}
		// A poll interval, not a window: the state is read again. It grows
		// so that a busy box is not made busier by the polling.
		time.Sleep(pause)
		pause = min(2*pause, 2*time.Millisecond)
	}
}

// settled returns "" when the conditions hold, else which one does not
// (yet: a connection being handed to an event loop, or being closed, passes
// through states that are not an answer). Only a failure to read /proc is
// an error.
func settled(local, remote *net.TCPAddr, pid int) (string, error) {
	ours, theirs, err := findPair(local, remote)
	if err != nil {
		return "", err
	}
	if ours == nil {
		return fmt.Sprintf("no socket %v <-> %v", local, remote), nil
	}
	if ours.txQueue != 0 {
		return fmt.Sprintf("%d bytes not yet acknowledged", ours.txQueue), nil
	}
	if peerFinished(ours.state) {
		return "", nil // the server closed the connection: it will say nothing more on it
	}
	if theirs == nil || theirs.state != tcpEstablished && theirs.state != tcpCloseWait { // CLOSE_WAIT: the client half-closed
		return fmt.Sprintf("the server's end %v <-> %v is not established", remote, local), nil
	}
	if theirs.rxQueue != 0 {
		return fmt.Sprintf("%d bytes not yet read by the server", theirs.rxQueue), nil
	}
	w, why := watcherOf(pid, theirs.inode)
	if why != "" {
		return why, nil
	}
	asleep, err := sleepingIn(pid, w.epfds)
	if err != nil || asleep {
		return "", err
	}
	return "the event loop is not asleep in epoll_wait", nil
}

// reset reports whether the kernel has closed c under the client: the
// server reset the connection (it closed with bytes of ours unread) or it
// timed out. sock_diag no longer lists such a socket, and the server will
// say nothing more on it.
func reset(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	state := -1
	_ = rc.Control(func(fd uintptr) {
		if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			state = int(info.State)
		}
	})
	return state == tcpClose
}

// sock is the kernel's view of a socket.
type sock struct {
	state            int
	txQueue, rxQueue int64
	inode            string
}

// findPair returns the kernel's rows for both ends of a loopback
// connection.
func findPair(local, remote *net.TCPAddr) (ours, theirs *sock, err error) {
	if ours, err = diagSocket(local, remote); err != nil {
		return nil, nil, err
	}
	theirs, err = diagSocket(remote, local)
	return ours, theirs, err
}

// findSocket returns the kernel's row for the socket bound to local and
// connected to remote (remote nil: a listening socket on local's port).
func findSocket(local, remote *net.TCPAddr) (*sock, error) {
	if remote == nil {
		return diagListening(local)
	}
	return diagSocket(local, remote)
}

// TCP states (include/net/tcp_states.h).
const (
	tcpEstablished = 0x01
	tcpTimeWait    = 0x06
	tcpClose       = 0x07
	tcpCloseWait   = 0x08
	tcpLastAck     = 0x09
	tcpListen      = 0x0A
	tcpClosing     = 0x0B
)

// peerFinished reports whether a socket in state has received its peer's
// FIN: the peer will send nothing more.
func peerFinished(state int) bool {
	switch state {
	case tcpCloseWait, tcpLastAck, tcpTimeWait, tcpClosing, tcpClose:
		return true
	}
	return false
}

// Unread returns how many bytes the kernel holds for the client to read on
// c (SIOCINQ, the end of stream not counted): after Settle, the replies the
// server has sent that the client has not read yet.
func Unread(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, fmt.Errorf("unread: %T has no descriptor", c)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	cerr := rc.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
	if cerr != nil {
		return 0, cerr
	}
	return n, err
}

// PeerClosed reports whether the server has closed its end of c (the
// client's socket has received its FIN).
func PeerClosed(c net.Conn) (bool, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return false, fmt.Errorf("peerclosed: %v is not a TCP connection", c.LocalAddr())
	}
	s, err := findSocket(local, remote)
	if err != nil || s == nil {
		return false, fmt.Errorf("peerclosed: no socket %v <-> %v: %v", local, remote, err)
	}
	return peerFinished(s.state), nil
}

// Closed waits until the server's end of the connection from local to
// remote (a connection the client has closed) is closed by the server too:
// the server has noticed the hang-up. It fails after Timeout.
func Closed(local, remote net.Addr) error {
	l, ok1 := local.(*net.TCPAddr)
	r, ok2 := remote.(*net.TCPAddr)
	if !ok1 || !ok2 {
		return fmt.Errorf("closed: %v is not a TCP connection", local)
	}
	deadline := time.Now().Add(Timeout)
	for {
		s, err := findSocket(r, l)
		if err != nil {
			return err
		}
		if s == nil || s.state != tcpEstablished && s.state != tcpCloseWait {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("closed: the server did not close %v <-> %v within %v", r, l, Timeout)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// listening reports whether the kernel lists a listening TCP socket on addr.
func listening(addr string) bool {
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return false
	}
	s, err := findSocket(a, nil)
	return err == nil && s != nil
}

// watcher is the server's descriptor for a socket and the epoll
// descriptors that watch it.
type watcher struct {
	fd    int
	epfds []int
}

type watchKey struct {
	pid   int
	inode string
}

// watchers caches watcherOf's answers: scanning every descriptor of a
// process on each poll would load the box it waits on.
var watchers sync.Map // watchKey -> watcher

// watcherOf finds (or recalls, after checking it still holds) the server's
// descriptor for the socket inode and the epoll descriptors watching it; why
// says what is missing (a connection being handed over has neither yet).
func watcherOf(pid int, inode string) (watcher, string) {
	key := watchKey{pid, inode}
	if v, ok := watchers.Load(key); ok {
		w := v.(watcher)
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, w.fd)); err == nil && l == "socket:["+inode+"]" &&
			slices.Equal(epollWatching(pid, w.fd, w.epfds), w.epfds) {
			return w, ""
		}
		watchers.Delete(key)
	}
	fd, ok := fdOfInode(pid, inode)
	if !ok {
		return watcher{}, fmt.Sprintf("process %d has no descriptor for socket %s", pid, inode)
	}
	w := watcher{fd: fd, epfds: epollWatching(pid, fd, nil)}
	if len(w.epfds) == 0 {
		return watcher{}, fmt.Sprintf("no epoll descriptor of %d watches its fd %d level-triggered", pid, fd)
	}
	watchers.Store(key, w)
	return w, ""
}

// fdOfInode returns pid's descriptor for the socket inode.
func fdOfInode(pid int, inode string) (int, bool) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil || inode == "0" {
		return 0, false
	}
	want := "socket:[" + inode + "]"
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && l == want {
			n, err := strconv.Atoi(e.Name())
			return n, err == nil
		}
	}
	return 0, false
}

// epollWatching returns those of pid's descriptors (among candidates; all
// if nil) that are epoll descriptors watching fd level-triggered
// (watchesLevel).
func epollWatching(pid, fd int, candidates []int) []int {
	dir := fmt.Sprintf("/proc/%d/fdinfo", pid)
	names := make([]string, len(candidates))
	for i, c := range candidates {
		names[i] = strconv.Itoa(c)
	}
	if candidates == nil {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); err == nil && l == "anon_inode:[eventpoll]" {
				names = append(names, e.Name())
			}
		}
	}
	var out []int
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if watchesLevel(string(b), fd) {
			n, _ := strconv.Atoi(name)
			out = append(out, n)
		}
	}
	return out
}

// Interest flags of an epoll registration (linux/eventpoll.h).
const (
	epollOneShot = 1 << 30
	epollET      = 1 << 31
)

// watchesLevel reports whether the fdinfo text of an epoll descriptor
// ("tfd: FD events: HEX data: ...", one line per registration) registers
// fd with a level-triggered, persistent interest: only then does a thread
// asleep on it mean that the socket has nothing pending (see Settle). An
// edge-triggered registration (the Go runtime's poller) or a one-shot one
// does not count.
func watchesLevel(fdinfo string, fd int) bool {
	want := strconv.Itoa(fd)
	for _, line := range strings.Split(fdinfo, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "tfd:" || f[1] != want || f[2] != "events:" {
			continue
		}
		ev, err := strconv.ParseUint(f[3], 16, 32)
		return err == nil && ev&(epollET|epollOneShot) == 0
	}
	return false
}

// epollWaits are the numbers of epoll_wait, epoll_pwait and epoll_pwait2.
var epollWaits = map[string][]string{
	"amd64": {"232", "281", "441"},
	"arm64": {"22", "441"},
}

// sleepingIn reports whether a thread of pid sleeps in an epoll wait on one
// of epfds. /proc/PID/task/TID/syscall names the call only for a thread
// blocked in it ("running" otherwise).
func sleepingIn(pid int, epfds []int) (bool, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return false, nil // the process is going away
	}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "syscall"))
		if os.IsPermission(err) {
			return false, fmt.Errorf("settle: %v (reading another process's system call needs ptrace rights)", err)
		}
		if err != nil {
			continue // the thread is gone
		}
		f := strings.Fields(string(b))
		if len(f) < 2 || !contains(epollWaits[runtime.GOARCH], f[0]) {
			continue
		}
		fd, err := strconv.ParseInt(strings.TrimPrefix(f[1], "0x"), 16, 64)
		if err != nil {
			continue
		}
		for _, e := range epfds {
			if int64(e) == fd {
				return true, nil
			}
		}
	}
	return false, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
