package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/stalkd/stalkd/jobs/cluster"
	"io"
	"net/http"
	"strings"
)

// Several nodes. --admin (or $STALKD_ADMIN) may list every node's admin
// address, comma-separated. "cluster" then shows each node's own view,
// one after another (--json: an array): each node answers for itself, so
// a lagging applied index or a node that lost the leader shows. A
// membership change goes to the first address; a stalkd node that does
// not lead forwards it to the leader itself, and when one answers 421
// (no leader known to it, or an older stalkd) stalkctl asks the other
// addresses which node each one is and sends the change to the one the
// 421 named.

// adminURLs splits --admin into its addresses.
func adminURLs(s string) []string {
	var out []string
	for _, u := range strings.Split(s, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// adminClients builds one client per --admin address.
func adminClients(a *app, inv *invocation) ([]*adminClient, error) {
	urls := adminURLs(inv.adminURL)
	if len(urls) == 0 {
		urls = []string{""} // newAdminClient reports the missing --admin
	}
	var hs []*adminClient
	for _, u := range urls {
		one := *inv
		one.adminURL = u
		h, err := newAdminClient(a, &one)
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	return hs, nil
}

// clustersResult is "cluster" asked of several nodes.
type clustersResult struct {
	views []result // clusterResult or standaloneResult
	errs  []error  // per node: nil, or why it did not answer
	bases []string
}

func (r clustersResult) json() any {
	out := []any{}
	for i, v := range r.views {
		if r.errs[i] != nil {
			out = append(out, map[string]string{"admin": r.bases[i], "error": r.errs[i].Error()})
			continue
		}
		out = append(out, v.json())
	}
	return out
}

func (r clustersResult) print(w io.Writer) {
	for i, v := range r.views {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if r.errs[i] != nil {
			fmt.Fprintf(w, "%s: %v\n", r.bases[i], r.errs[i])
			continue
		}
		v.print(w)
	}
}

// adminClusterAll is "cluster" asked of every listed node. It fails (after
// printing what the others said) when a node did not answer.
func adminClusterAll(ctx context.Context, a *app, hs []*adminClient, inv *invocation) (result, error) {
	r := clustersResult{views: make([]result, len(hs)), errs: make([]error, len(hs))}
	var first error
	for i, h := range hs {
		r.bases = append(r.bases, h.base)
		res, err := adminCluster(ctx, a, h, inv)
		if err != nil {
			r.errs[i] = err
			first = firstErr(first, err)
			continue
		}
		r.views[i] = res
	}
	return r, first
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// adminChange sends a membership change to the first node; on a 421 it
// follows the leader the answer named, among the other listed nodes.
func adminChange(ctx context.Context, a *app, hs []*adminClient, inv *invocation) (result, error) {
	res, err := inv.cmd.admin(ctx, a, hs[0], inv)
	var ae *adminError
	if err == nil || len(hs) == 1 || !errors.As(err, &ae) || ae.status != http.StatusMisdirectedRequest || ae.leader == "" {
		return res, err
	}
	for _, h := range hs[1:] {
		var c cluster.Status
		if h.do(ctx, http.MethodGet, "/v1/cluster", nil, &c) != nil || c.ID != ae.leader {
			continue
		}
		fmt.Fprintf(a.stderr, "stalkctl: %s does not lead; sending %s to the leader %s at %s\n",
			hs[0].base, inv.cmd.name, ae.leader, h.base)
		return inv.cmd.admin(ctx, a, h, inv)
	}
	return nil, err
}

// runAdminNodes runs an admin command against the listed nodes.
func (a *app) runAdminNodes(ctx context.Context, inv *invocation) (result, error) {
	hs, err := adminClients(a, inv)
	if err != nil {
		return nil, err
	}
	if inv.cmd.name == "cluster" && len(hs) > 1 {
		return adminClusterAll(ctx, a, hs, inv)
	}
	return adminChange(ctx, a, hs, inv)
}
