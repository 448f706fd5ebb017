package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestStatusJSON pins the admin API's document: its keys, their order, and
// the two counters it leaves out.
func TestStatusJSON(t *testing.T) {
	st := Status{ID: "n1", State: "leader", Leader: "n1", LeaderAddr: "10.0.0.1:11310", Term: 3,
		CommitIndex: 40, AppliedIndex: 39, LastSnapshotIndex: 16, EntriesProposed: 5, RecordsProposed: 120,
		Servers: []Server{{ID: "n1", Addr: "10.0.0.1:11310", Suffrage: Voter}, {ID: "n2", Addr: "10.0.0.2:11310", Suffrage: Nonvoter}}}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"n1","state":"leader","leader":"n1","leader_addr":"10.0.0.1:11310","term":3,` +
		`"commit_index":40,"applied_index":39,"last_snapshot_index":16,"servers":[` +
		`{"id":"n1","addr":"10.0.0.1:11310","suffrage":"voter"},{"id":"n2","addr":"10.0.0.2:11310","suffrage":"nonvoter"}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back Status
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Servers[0].Voter() || back.Servers[1].Voter() {
		t.Fatalf("suffrage lost: %+v", back.Servers)
	}
}

func TestErrNotLeaderWraps(t *testing.T) {
	err := fmt.Errorf("raft: add voter n4: %w", ErrNotLeader)
	if !errors.Is(err, ErrNotLeader) {
		t.Fatal("a wrapped ErrNotLeader must match")
	}
}
