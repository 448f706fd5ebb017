package raft

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHCLogger: raft's messages reach zerolog lowercased, with snake_case
// fields, formatted hclog.Fmt values, errors as errors, and levels kept.
func TestHCLogger(t *testing.T) {
	var buf bytes.Buffer
	l := newHCLogger(zerolog.New(&buf).Level(zerolog.InfoLevel)).Named("snap").With("peer-id", "n2")
	l.Debug("not shown")
	l.Warn("Failed to contact", "last-index", 7, "error", errors.New("boom"), "servers", hclog.Fmt("%d servers", 3))
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
	assert.Equal(t, map[string]any{
		"level": "warn", "message": "failed to contact", "raft_name": "snap", "peer_id": "n2",
		"last_index": 7.0, "error": "boom", "servers": "3 servers",
	}, line)
	assert.False(t, l.IsDebug())
	assert.True(t, l.IsInfo())
}
