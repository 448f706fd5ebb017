package admin

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// allowMutation decides whether r may change the queue. It returns "" to
// allow, or the reason for refusing. It is the one place the security work
// (an admin bearer token) will extend.
//
// Today a mutation needs all of:
//   - a loopback or Unix-socket listener (anyone who can reach it could
//     already speak the protocol to the same machine);
//   - on TCP, a Host header naming a loopback address or "localhost", so
//     that a web page whose DNS name was rebound to 127.0.0.1 cannot use
//     the operator's browser to act;
//   - when a browser sends an Origin header, one whose host matches the
//     request's Host (no cross-site form posts or fetches).
func (s *Server) allowMutation(r *http.Request) string {
	if !s.local {
		return "mutating calls are only accepted on a loopback or Unix-socket admin address"
	}
	if !s.unix && !loopbackHost(r.Host) {
		return "mutating calls need a loopback Host header"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return "cross-origin mutating calls are refused"
		}
	}
	return ""
}

// loopbackHost reports whether a Host header names the local machine.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
