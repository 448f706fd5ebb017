package embed

// For the external test package (loopback_bench_test.go, which needs a
// node: package node imports embed).

// RunLatency is runLatency.
var RunLatency = runLatency

// BenchShape is one of benchShapes.
type BenchShape struct {
	Name               string
	Producers, Workers int
	Closed             bool
}

// BenchShapes are benchShapes.
func BenchShapes() []BenchShape {
	out := make([]BenchShape, len(benchShapes))
	for i, sh := range benchShapes {
		out[i] = BenchShape{sh.name, sh.producers, sh.workers, sh.closed}
	}
	return out
}
