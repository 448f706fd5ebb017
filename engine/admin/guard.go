package admin

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// allowMutation decides whether r may change the queue. It returns "" to
// allow, or the reason for refusing.
//
// With bearer tokens (Options.Tokens), a request that reached it carries a
// valid token (withAuth checked it) and may act from any address, provided
// a browser's Origin matches. Without tokens, a mutation needs all of:
//   - a loopback or Unix-socket listener (anyone who can reach it could
//     already speak the protocol to the same machine);
//   - on TCP, a Host header naming a loopback address or "localhost", so
//     that a web page whose DNS name was rebound to 127.0.0.1 cannot use
//     the operator's browser to act;
//   - when a browser sends an Origin header, one whose host matches the
//     request's Host (no cross-site form posts or fetches).
func (s *Server) allowMutation(r *http.Request) string {
	if !s.tokens.Empty() {
		return sameOrigin(r) // the bearer token was checked by withAuth
	}
	if !s.local {
		return "mutating calls are only accepted on a loopback or Unix-socket admin address"
	}
	if !s.unix && !loopbackHost(r.Host) {
		return "mutating calls need a loopback Host header"
	}
	return sameOrigin(r)
}

// sameOrigin refuses a browser request whose Origin is another site's (no
// cross-site form posts or fetches).
func sameOrigin(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return "cross-origin mutating calls are refused"
		}
	}
	return ""
}

// mutable reports whether mutations can be allowed at all on this listener.
func (s *Server) mutable() bool { return s.local || !s.tokens.Empty() }

// withAuth requires a bearer token, when tokens are configured, on every
// request but the health checks and the dashboard's static files (which
// hold no data: the page asks for the token and sends it with its API
// calls). A refusal is 401 with a JSON error and WWW-Authenticate.
func (s *Server) withAuth(next http.Handler) http.Handler {
	if s.tokens.Empty() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		public := p == "/healthz" || p == "/readyz" || (p != "/metrics" && !strings.HasPrefix(p, "/v1/"))
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if public || (ok && s.tokens.Match([]byte(strings.TrimSpace(tok)))) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="stalkd"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "a valid bearer token is required (Authorization: Bearer <token>)")
	})
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

// policyRoute declares a route that changes tube policies: every method
// but GET and HEAD goes through policyGuard before its handler, so a
// method added to such a route (PATCH, say) is guarded without a word of
// its own. Every route that changes policies is declared with it.
func (s *Server) policyRoute(pattern []string, methods map[string]apiHandler) route {
	guarded := make(map[string]apiHandler, len(methods))
	for m, h := range methods {
		if m == http.MethodGet || m == http.MethodHead {
			guarded[m] = h
			continue
		}
		guarded[m] = func(w http.ResponseWriter, r *http.Request, args []string) {
			if s.policyGuard(w) {
				h(w, r, args)
			}
		}
	}
	return route{pattern, guarded}
}

// policyGuard is the one gate of every call that changes tube policies
// (the methods of the routes declared with policyRoute: PUT and DELETE
// /v1/tubes/{tube}/policy, and whatever joins them). While a policy file is in force
// (Options.PolicyFile) the file is the truth: the call is refused with
// 409 managed_by_file naming the file, and it reports false. Without one
// it reports true and the API owns the policies.
func (s *Server) policyGuard(w http.ResponseWriter) bool {
	f := s.opts.PolicyFile
	if f == "" {
		return true
	}
	writeJSON(w, http.StatusConflict, fileErr{Error: fileErrBody{Code: "managed_by_file", File: f,
		Message: "the tube policies are managed by the file " + f + " (--policies): change the file and send the server SIGHUP"}})
	return false
}

// fileErr is the 409 body of policyGuard: the usual error shape plus the
// file that owns the policies.
type fileErr struct {
	Error fileErrBody `json:"error"`
}

type fileErrBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	File    string `json:"file"`
}
