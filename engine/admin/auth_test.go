package admin

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const adminToken = "admin-bearer-token-0123456789"

// With tokens, everything but the health checks and the page's static
// files needs the bearer token; with it, reads and mutations work.
func TestBearerTokens(t *testing.T) {
	s := newStack(t, func(o *Options) { o.Tokens = []string{"other-token-abcdefghijkl", adminToken} })
	bearer := []string{"Authorization", "Bearer " + adminToken}
	for _, path := range []string{"/healthz", "/readyz", "/", "/app.js", "/app.css"} {
		code, _ := s.do(http.MethodGet, path)
		assert.Equal(t, http.StatusOK, code, "%s needs no token", path)
	}
	for _, path := range []string{"/metrics", "/v1/stats", "/v1/tubes", "/v1/tubes/default"} {
		code, body := s.do(http.MethodGet, path)
		assert.Equal(t, http.StatusUnauthorized, code, "%s without a token", path)
		if strings.HasPrefix(path, "/v1/") {
			assert.Contains(t, string(body), `"unauthorized"`)
		}
		code, _ = s.do(http.MethodGet, path, "Authorization", "Bearer wrong-token-0123456789")
		assert.Equal(t, http.StatusUnauthorized, code, "%s with a wrong token", path)
		code, _ = s.do(http.MethodGet, path, bearer...)
		assert.Equal(t, http.StatusOK, code, "%s with the token", path)
	}
	code, _ := s.do(http.MethodPost, "/v1/tubes/default/pause?seconds=5")
	assert.Equal(t, http.StatusUnauthorized, code, "a mutation without a token")
	code, body := s.do(http.MethodPost, "/v1/tubes/default/pause?seconds=5", bearer...)
	require.Equal(t, http.StatusOK, code, string(body))
	ts, err := s.q.StatsTube([]byte("default"))
	require.NoError(t, err)
	assert.EqualValues(t, 1, ts.Pauses, "the pause happened")
	code, _ = s.do(http.MethodPost, "/v1/tubes/default/pause?seconds=5",
		append(bearer, "Origin", "http://evil.example")...)
	assert.Equal(t, http.StatusForbidden, code, "a cross-origin mutation, even with the token")
}

// Without tokens nothing asks for one.
func TestNoBearerTokensByDefault(t *testing.T) {
	s := newStack(t)
	code, _ := s.do(http.MethodGet, "/v1/stats")
	assert.Equal(t, http.StatusOK, code)
}
