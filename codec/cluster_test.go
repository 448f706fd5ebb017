package codec

import "testing"

// stats-cluster, stalkd's own: matched before the reference's "stats"
// prefix, taking no arguments; stats itself is unchanged.
func TestDecodeStatsCluster(t *testing.T) {
	runCases(t, []decodeCase{
		{"stats-cluster", "stats-cluster\r\n", 0, []Command{op(OpStatsCluster)}},
		{"stats-cluster trailing", "stats-cluster x\r\n", 0, []Command{bad(OpStatsCluster)}},
		{"stats-clusterx", "stats-clusterx\r\n", 0, []Command{bad(OpStatsCluster)}},
		{"stats-cluste", "stats-cluste\r\n", 0, []Command{bad(OpStats)}},
		{"stats", "stats\r\n", 0, []Command{op(OpStats)}},
	})
}
