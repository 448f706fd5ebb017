package enginetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel's socket table, asked one socket at a time (sock_diag over
// netlink, the interface ss(8) uses). Reading /proc/net/tcp instead walks
// the whole table on every read, which, polled, loads the box it waits on.

// Sizes of the inet_diag structures (linux/inet_diag.h).
const (
	sizeofSockID = 48 // inet_diag_sockid
	sizeofReqV2  = 8 + sizeofSockID
	sizeofMsg    = 4 + sizeofSockID + 20 // inet_diag_msg
)

// diagSocket returns the kernel's view of the TCP socket bound to local and
// connected to remote; nil when there is none.
func diagSocket(local, remote *net.TCPAddr) (*sock, error) {
	req, family := diagRequest(local, remote, 0)
	msgs, err := diagAsk(req, syscall.NLM_F_REQUEST)
	if errors.Is(err, syscall.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if s := parseDiag(m, family); s != nil {
			return s, nil
		}
	}
	return nil, nil
}

// diagListening returns the listening TCP socket on addr, or nil.
func diagListening(addr *net.TCPAddr) (*sock, error) {
	req, family := diagRequest(addr, &net.TCPAddr{IP: addr.IP}, 1<<tcpListen)
	msgs, err := diagAsk(req, syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if len(m) >= sizeofMsg && int(binary.BigEndian.Uint16(m[4:6])) == addr.Port {
			return parseDiag(m, family), nil
		}
	}
	return nil, nil
}

// diagRequest builds an inet_diag_req_v2 for the socket from local to
// remote, matching states (0: any) on a dump.
func diagRequest(local, remote *net.TCPAddr, states uint32) ([]byte, byte) {
	family, src, dst := byte(unix.AF_INET6), local.IP.To16(), remote.IP.To16()
	if v4 := local.IP.To4(); v4 != nil {
		family, src, dst = unix.AF_INET, v4, remote.IP.To4()
	}
	b := make([]byte, sizeofReqV2)
	b[0], b[1] = family, unix.IPPROTO_TCP
	if states == 0 {
		states = ^uint32(0)
	}
	binary.NativeEndian.PutUint32(b[4:], states)
	id := b[8:]
	binary.BigEndian.PutUint16(id[0:], uint16(local.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(remote.Port))
	copy(id[4:20], src)
	copy(id[20:36], dst)
	binary.NativeEndian.PutUint32(id[40:], ^uint32(0)) // INET_DIAG_NOCOOKIE
	binary.NativeEndian.PutUint32(id[44:], ^uint32(0))
	return b, family
}

// diagAsk sends one sock_diag request and returns the inet_diag_msg
// payloads of the answer.
func diagAsk(req []byte, flags uint16) ([][]byte, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	msg := make([]byte, syscall.NLMSG_HDRLEN+len(req))
	binary.NativeEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(msg[6:], flags)
	binary.NativeEndian.PutUint32(msg[8:], 1) // sequence
	copy(msg[syscall.NLMSG_HDRLEN:], req)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	var out [][]byte
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, fmt.Errorf("sock_diag: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, fmt.Errorf("sock_diag: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case syscall.NLMSG_DONE:
				return out, nil
			case syscall.NLMSG_ERROR:
				if len(m.Data) < 4 {
					return nil, errors.New("sock_diag: short error")
				}
				if code := int32(binary.NativeEndian.Uint32(m.Data)); code != 0 {
					return nil, syscall.Errno(-code)
				}
				return out, nil
			default:
				out = append(out, append([]byte(nil), m.Data...))
			}
		}
		if flags&syscall.NLM_F_DUMP == 0 && len(out) > 0 {
			return out, nil
		}
	}
}

// parseDiag reads an inet_diag_msg of family, or nil.
func parseDiag(m []byte, family byte) *sock {
	if len(m) < sizeofMsg || m[0] != family {
		return nil
	}
	rest := m[4+sizeofSockID:]
	return &sock{
		state:   int(m[1]),
		rxQueue: int64(binary.NativeEndian.Uint32(rest[4:])),
		txQueue: int64(binary.NativeEndian.Uint32(rest[8:])),
		inode:   strconv.FormatUint(uint64(binary.NativeEndian.Uint32(rest[16:])), 10),
	}
}
