package admin

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// csp is the Content-Security-Policy of every response: only this origin's
// own script and style files, no inline script, no framing, no plugins.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// routes builds the whole handler: fixed paths on a ServeMux, /v1/ on the
// API router (which parses escaped path segments itself, because tube names
// may contain '/', '.' and other characters a ServeMux would clean).
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
	}))
	mux.HandleFunc("/healthz", s.healthz)
	mux.HandleFunc("/readyz", s.readyz)
	mux.Handle("/v1/", http.HandlerFunc(s.api))
	mux.Handle("/", dashboardHandler())
	return s.withCommon(s.withAuth(mux))
}

// withCommon adds the security headers every response carries and logs
// each request at debug level.
func (s *Server) withCommon(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		s.log.Debug().Str("method", r.Method).Str("path", r.URL.EscapedPath()).Int("status", sw.status).
			Str("remote_addr", r.RemoteAddr).
			Float64("took_ms", float64(time.Since(start).Microseconds())/1000).Msg("admin request")
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// route is one API endpoint: a pattern of path segments ("*" matches any
// one segment, handed to the handler in order) and a handler per method.
type route struct {
	pattern []string
	methods map[string]apiHandler
}

// apiHandler serves one API call; args are the segments matched by "*",
// already unescaped.
type apiHandler func(w http.ResponseWriter, r *http.Request, args []string)

func (s *Server) apiRoutes() []route {
	get := http.MethodGet
	post := http.MethodPost
	rs := []route{
		{[]string{"stats"}, map[string]apiHandler{get: s.getStats}},
		{[]string{"history"}, map[string]apiHandler{get: s.getHistory}},
		{[]string{"tubes"}, map[string]apiHandler{get: s.getTubes}},
		{[]string{"tubes", "*"}, map[string]apiHandler{get: s.getTube}},
		{[]string{"tubes", "*", "jobs"}, map[string]apiHandler{get: s.getTubeJobs}},
		{[]string{"tubes", "*", "kick"}, map[string]apiHandler{post: s.kickTube}},
		{[]string{"tubes", "*", "pause"}, map[string]apiHandler{post: s.pauseTube}},
		{[]string{"tubes", "*", "clear"}, map[string]apiHandler{post: s.clearTube}},
		{[]string{"tubes", "*", "redrive"}, map[string]apiHandler{post: s.redriveTube}},
		{[]string{"jobs", "*"}, map[string]apiHandler{get: s.getJob, http.MethodDelete: s.deleteJob}},
		{[]string{"jobs", "*", "kick"}, map[string]apiHandler{post: s.kickJob}},
		{[]string{"jobs", "*", "move"}, map[string]apiHandler{post: s.moveJob}},
		{[]string{"policies"}, map[string]apiHandler{get: s.getPolicies}},
		s.policyRoute([]string{"tubes", "*", "policy"}, map[string]apiHandler{get: s.getPolicy,
			http.MethodPut: s.putPolicy, http.MethodPatch: s.putPolicy, http.MethodDelete: s.deletePolicy}),
	}
	if s.opts.Cluster != nil {
		rs = append(rs,
			route{[]string{"cluster"}, map[string]apiHandler{get: s.getCluster}},
			route{[]string{"cluster", "voters"}, map[string]apiHandler{post: s.addVoter}},
			route{[]string{"cluster", "servers", "*"}, map[string]apiHandler{http.MethodDelete: s.removeServer}},
		)
	}
	return rs
}

// clusterRoute reports whether a path is one of /v1/cluster's, which a
// follower serves too.
func clusterRoute(segs []string) bool { return len(segs) > 0 && segs[0] == "cluster" }

// api dispatches /v1/... requests.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	rest, _ := strings.CutPrefix(r.URL.EscapedPath(), "/v1/")
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	for i, seg := range segs {
		u, err := url.PathUnescape(seg)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_path", "the path is not properly escaped")
			return
		}
		segs[i] = u
	}
	if s.opts.Cluster != nil && !clusterRoute(segs) {
		q := s.opts.Cluster.Queue()
		pf := s.policyForwarder(r, segs)
		mf := s.moveForwarder(r, segs)
		if q == nil && pf == nil && mf == nil {
			s.writeNotLeader(w)
			return
		}
		view := *s // this request's view: the queue of the term it was routed to
		view.q = q
		if q == nil {
			view.fwd = pf  // a follower's policy change: the leader makes it
			view.mfwd = mf // a follower's redrive or move, likewise
		}
		s = &view
	}
	for _, rt := range s.apiRoutes() {
		args, ok := match(rt.pattern, segs)
		if !ok {
			continue
		}
		h, ok := rt.methods[r.Method]
		if !ok && r.Method == http.MethodHead {
			h, ok = rt.methods[http.MethodGet]
		}
		if !ok {
			allow := make([]string, 0, len(rt.methods))
			for m := range rt.methods {
				allow = append(allow, m)
			}
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed here")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if reason := s.allowMutation(r); reason != "" {
				writeError(w, http.StatusForbidden, "forbidden", reason)
				return
			}
		}
		h(w, r, args)
		return
	}
	writeError(w, http.StatusNotFound, "no_such_endpoint", "no such API endpoint")
}

func match(pattern, segs []string) ([]string, bool) {
	if len(pattern) != len(segs) {
		return nil, false
	}
	var args []string
	for i, p := range pattern {
		switch {
		case p == "*":
			args = append(args, segs[i])
		case p != segs[i]:
			return nil, false
		}
	}
	return args, true
}
