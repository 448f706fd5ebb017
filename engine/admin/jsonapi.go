package admin

import (
	"encoding/json"
	"net/http"
)

// apiErr is the body of every error response:
//
//	{"error": {"code": "not_found", "message": "no such tube"}}
type apiErr struct {
	Error errBody `json:"error"`
}

type errBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// writeJSON writes v as JSON with the given status. encoding/json escapes
// <, > and & in strings, so even a response sniffed as HTML holds no markup.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeError writes the JSON error shape.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, apiErr{Error: errBody{Code: code, Message: msg}})
}
