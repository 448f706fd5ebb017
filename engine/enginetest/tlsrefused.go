package enginetest

import (
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"
)

// TLSRefused reports whether the TLS listener at addr refuses a client
// configured by cfg:
// its handshake or its first exchange fails (in TLS 1.3 a client learns
// that its certificate was refused on its first read).
func TLSRefused(t testing.TB, addr string, cfg *tls.Config) bool {
	d := &net.Dialer{Timeout: 10 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return true
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "list-tube-used\r\n"); err != nil {
		return true
	}
	_, err = c.Read(make([]byte, 64))
	return err != nil
}
