package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// Cluster commands. "cluster" shows a cluster member's view: through the
// admin API (GET /v1/cluster) with --admin, else the protocol's
// stats-cluster document from -a. "add-voter" and "remove-server" change
// the membership through the admin API of the leader (--admin URL or
// $STALKD_ADMIN; a bearer token from --admin-token-file or
// $STALKD_ADMIN_TOKEN). A follower forwards a change to the leader; one that
// knows no leader answers 421, and stalkctl says so and exits 7 - unless
// --admin lists the node the 421 names (cluster_nodes.go).

// exitNotLeader: a membership change was refused by a node that does not
// lead (421).
const exitNotLeader = 7

// errNotLeader is a 421 from the admin API.
var errNotLeader = errors.New("not the leader")

// clusterCommands are listed after the others (commands.go).
var clusterCommands = []*command{
	{name: "cluster", synopsis: "[--admin URL]",
		help:    "a cluster member's view: state, leader, term, indexes, servers (stats-cluster without --admin)",
		maxArgs: 0, run: runStatsCluster, admin: adminCluster},
	{name: "add-voter", synopsis: "ID RAFT-ADDR --admin URL",
		help:    "add a node (started with an empty -b) to the cluster as a voter (on the leader)",
		minArgs: 2, maxArgs: 2, admin: adminAddVoter},
	{name: "remove-server", synopsis: "ID --admin URL",
		help:    "remove a node from the cluster (on the leader)",
		minArgs: 1, maxArgs: 1, admin: adminRemoveServer},
}

// adminClient calls one node's admin API.
type adminClient struct {
	base  string // http://host:port, no trailing slash
	token string
	hc    *http.Client
}

// adminError is an error reply of the admin API.
type adminError struct {
	status           int
	code, message    string
	leader, leaderAt string
}

func (e *adminError) Error() string { return e.message }

func (e *adminError) Unwrap() error {
	switch e.status {
	case http.StatusMisdirectedRequest:
		return errNotLeader
	case http.StatusNotFound:
		return client.ErrNotFound
	}
	return nil
}

// do sends a request with an optional JSON body and decodes a 2xx reply
// into out.
func (h *adminClient) do(ctx context.Context, method, path string, in, out any) error {
	_, err := h.call(ctx, method, path, in, out)
	return err
}

// call is do returning the reply's header too (nil when there was none).
func (h *adminClient) call(ctx context.Context, method, path string, in, out any) (http.Header, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.base+path, body)
	if err != nil {
		return nil, &usageError{fmt.Sprintf("--admin %s: %v", h.base, err)}
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
		if method == http.MethodPatch {
			req.Header.Set("Content-Type", "application/merge-patch+json") // RFC 7386
		}
	}
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, &connectError{addr: h.base, err: err, hint: "--admin or $STALKD_ADMIN"}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.Header, err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct {
				Code, Message, Leader string
				LeaderAddr            string `json:"leader_addr"`
			}
		}
		ae := &adminError{status: resp.StatusCode, message: fmt.Sprintf("%s %s: HTTP %d", method, path, resp.StatusCode)}
		if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
			ae.code, ae.message = e.Error.Code, e.Error.Message
			ae.leader, ae.leaderAt = e.Error.Leader, e.Error.LeaderAddr
		}
		if ae.status == http.StatusMisdirectedRequest {
			ae.message += " (run it against the leader's --admin address, or list every node's: --admin URL,URL,...)"
		}
		return resp.Header, ae
	}
	if out == nil {
		return resp.Header, nil
	}
	return resp.Header, json.Unmarshal(b, out)
}

// newAdminClient builds the client from --admin and the token settings.
func newAdminClient(a *app, inv *invocation) (*adminClient, error) {
	base := strings.TrimSuffix(inv.adminURL, "/")
	if base == "" {
		return nil, usageErrorf("%s needs the admin API: --admin URL or $STALKD_ADMIN", inv.cmd.name)
	}
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	if _, err := url.Parse(base); err != nil {
		return nil, usageErrorf("--admin %s: %v", inv.adminURL, err)
	}
	tok := a.getenv("STALKD_ADMIN_TOKEN")
	if inv.adminTokenFile != "" {
		b, err := os.ReadFile(inv.adminTokenFile)
		if err != nil {
			return nil, usageErrorf("--admin-token-file: %v", err)
		}
		tok, _, _ = strings.Cut(string(b), "\n")
	}
	return &adminClient{base: base, token: strings.TrimSpace(tok), hc: &http.Client{Timeout: a.ioTimeout}}, nil
}

// clusterResult is GET /v1/cluster.
type clusterResult struct{ c cluster.Status }

func (r clusterResult) json() any { return r.c }

func (r clusterResult) print(w io.Writer) {
	c := r.c
	leader := c.Leader
	if leader == "" {
		leader = "(none)"
	}
	fmt.Fprintf(w, "node %s: %s, leader %s, term %d\n", c.ID, c.State, leader, c.Term)
	fmt.Fprintf(w, "commit index %d, applied index %d, last snapshot index %d\n", c.CommitIndex, c.AppliedIndex, c.LastSnapshotIndex)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tRAFT ADDRESS\tSUFFRAGE")
	for _, s := range c.Servers {
		id := s.ID
		if s.ID == c.Leader {
			id += " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", id, s.Addr, s.Suffrage)
	}
	_ = tw.Flush()
}

func adminCluster(ctx context.Context, _ *app, h *adminClient, _ *invocation) (result, error) {
	var c cluster.Status
	if err := h.do(ctx, http.MethodGet, "/v1/cluster", nil, &c); err != nil {
		var ae *adminError
		if errors.As(err, &ae) && ae.status == http.StatusNotFound && ae.code == "no_such_endpoint" {
			return standaloneResult{h.base}, nil // a single node's admin API has no /v1/cluster
		}
		return nil, err
	}
	return clusterResult{c}, nil
}

// standaloneResult is "cluster" asked of a node that is no cluster
// member: not an error, the answer (stats-cluster says state standalone).
type standaloneResult struct{ base string }

func (r standaloneResult) print(w io.Writer) {
	fmt.Fprintf(w, "%s: standalone (a single node, not a member of a cluster)\n", r.base)
}

func (r standaloneResult) json() any {
	return map[string]string{"admin": r.base, "state": "standalone"}
}

func adminAddVoter(ctx context.Context, _ *app, h *adminClient, inv *invocation) (result, error) {
	var c cluster.Status
	in := map[string]string{"id": inv.args[0], "addr": inv.args[1]}
	if err := h.do(ctx, http.MethodPost, "/v1/cluster/voters", in, &c); err != nil {
		return nil, err
	}
	return clusterResult{c}, nil
}

func adminRemoveServer(ctx context.Context, _ *app, h *adminClient, inv *invocation) (result, error) {
	var c cluster.Status
	if err := h.do(ctx, http.MethodDelete, "/v1/cluster/servers/"+url.PathEscape(inv.args[0]), nil, &c); err != nil {
		return nil, err
	}
	return clusterResult{c}, nil
}

// rawResult prints a document as the server sent it.
type rawResult struct{ doc []byte }

func (r rawResult) print(w io.Writer) { _, _ = w.Write(r.doc) }
func (r rawResult) json() any         { return nil }

// runStatsCluster is "cluster" without --admin: the protocol's
// stats-cluster document, as YAML.
func runStatsCluster(_ context.Context, _ *app, c *client.Conn, inv *invocation) (result, error) {
	if inv.json {
		return nil, usageErrorf("cluster --json needs --admin URL (the protocol's stats-cluster is YAML)")
	}
	r, err := c.Do("stats-cluster", nil)
	if err != nil {
		return nil, err
	}
	if r.Word != "OK" {
		if r.Word == "UNKNOWN_COMMAND" {
			return nil, fmt.Errorf("stats-cluster: %w (not a stalkd cluster member)", client.ErrUnknownCommand)
		}
		return nil, fmt.Errorf("stats-cluster: %w: %s", client.ErrProtocol, r.Line)
	}
	return rawResult{r.Body}, nil
}

// runAdmin runs a command through the admin API of the --admin nodes
// (cluster_nodes.go). What was gathered is printed even on an error.
func (a *app) runAdmin(ctx context.Context, inv *invocation) error {
	res, err := a.runAdminNodes(ctx, inv)
	if res != nil {
		if inv.json {
			if jerr := writeJSON(a.stdout, res.json()); jerr != nil {
				return jerr
			}
		} else {
			res.print(a.stdout)
		}
	}
	return err
}
