package admin

import (
	"embed"
	"io/fs"
	"net/http"
)

// static holds the dashboard: one HTML page, its script and its style
// sheet. No build step, no CDN; the page talks only to /v1/.
//
//go:embed static
var static embed.FS

// dashboardHandler serves the embedded files at /, and 404 for anything
// else.
func dashboardHandler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/app.js", "/app.css":
		default:
			writeError(w, http.StatusNotFound, "not_found", "no such page")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed here")
			return
		}
		files.ServeHTTP(w, r)
	})
}
