package main

// The architecture's arrows, declared: every package of the module, the
// project packages and the frameworks (third-party modules) its code may
// import, and what its tests may import besides. The standard library is
// free, except for the pure libraries (codec, jobs and everything under
// them: see pure). TestArchitectureArrows fails on any import not in the
// table and on a package missing from it. engine/doc.go's drawing of it is
// generated: TestEngineDocArrows -update (docs_arrows_test.go).

// Frameworks, by module path (a package path matches its module's).
const (
	fwTestify    = "github.com/stretchr/testify"
	fwGnet       = "github.com/panjf2000/gnet/v2"
	fwZerolog    = "github.com/rs/zerolog"
	fwXsys       = "golang.org/x/sys"
	fwRaft       = "github.com/hashicorp/raft"
	fwHclog      = "github.com/hashicorp/go-hclog"
	fwRaftWAL    = "github.com/hashicorp/raft-wal"
	fwTidwall    = "github.com/tidwall/wal"
	fwPrometheus = "github.com/prometheus/client_golang"
	fwPromModel  = "github.com/prometheus/client_model"
	fwPromCommon = "github.com/prometheus/common"
	fwBeanstalk  = "github.com/beanstalkd/go-beanstalk"
	fwChromedp   = "github.com/chromedp/chromedp"
	fwCdproto    = "github.com/chromedp/cdproto"
	fwYaml       = "gopkg.in/yaml.v3"
	fwPorcupine  = "github.com/anishathalye/porcupine"
)

// allow is one package's row: code, what its non-test files may import;
// tests, what its _test.go files may import besides.
type allow struct{ code, tests []string }

func list(s ...string) []string { return s }

var arrows = map[string]allow{
	// The pure libraries: the wire format and the queue.
	"codec": {code: list(), tests: list(fwTestify, fwYaml)},
	"jobs": {code: list("jobs/policy", "jobs/internal/wheel", "jobs/internal/cron", "jobs/internal/tubename"),
		tests: list("jobs/jobsmodel", fwTestify)},
	"jobs/policy":            {code: list("jobs/internal/cron", "jobs/internal/tubename"), tests: list()}, // the policy value; Validate reads the cron and tube-name leaves
	"jobs/internal/cron":     {code: list(), tests: list()},
	"jobs/internal/tubename": {code: list(), tests: list()},
	"jobs/internal/wheel":    {code: list(), tests: list(fwTestify)},
	"jobs/jobsmodel":         {code: list("jobs"), tests: list()},
	"jobs/cluster":           {code: list(), tests: list()}, // the cluster vocabulary: a std-only leaf

	// Persistence: the journal seam jobs declares, on disk or through raft.
	"wal":                 {code: list("jobs", "wal/binlog", "wal/internal/fields", "wal/failpoint", fwTidwall, fwXsys, fwZerolog), tests: list(fwTestify)},
	"wal/internal/fields": {code: list("jobs"), tests: list(fwTestify)},
	"wal/binlog":          {code: list(), tests: list("engine/enginetest", fwTestify)}, // beanstalkd's binlog: std-only reader and writer
	"wal/failpoint":       {code: list(), tests: list()},                               // test builds only (-tags failpoints): the disk and clock faults' control
	"wal/raft": {code: list("jobs", "jobs/cluster", "wal/internal/fields", "wal/failpoint", fwRaft, fwHclog, fwRaftWAL, fwZerolog),
		tests: list("engine/enginetest", "engine/tlscert", fwTestify)},

	// The protocol server and its rooms.
	"engine": {code: list("codec", "jobs", "jobs/cluster", "engine/tlscert", "engine/internal/commit", "engine/internal/listen",
		"engine/internal/memreturn", "engine/internal/ratelog", "engine/internal/token", fwGnet, fwXsys, fwZerolog),
		tests: list("engine/enginetest", "engine/enginetest/inproc", fwBeanstalk, fwTestify, fwYaml)},
	"engine/front": {code: list("codec", "engine/tlscert", fwZerolog),
		tests: list("engine", "engine/enginetest", fwBeanstalk, fwTestify)},
	"engine/embed": {code: list("codec", "jobs", "wal", "engine/internal/commit", "engine/internal/memreturn", fwZerolog), // no engine: no gnet (engine/embed/embed_deps_test.go)
		tests: list("engine", "engine/node", "engine/enginetest", fwBeanstalk, fwTestify)},
	// The composition: a single server or a cluster member, for the daemon,
	// embedding programs and the tests.
	"engine/node": {code: list("engine", "engine/admin", "engine/embed", "engine/front", "engine/tlscert", "jobs", "jobs/cluster",
		"wal", "wal/raft", fwYaml, fwZerolog),
		tests: list("engine/enginetest", fwBeanstalk, fwTestify)},
	"engine/admin": {code: list("codec", "jobs", "jobs/cluster", "engine/internal/commit", "engine/internal/token", fwPrometheus, fwZerolog),
		tests: list("engine", "engine/enginetest", fwBeanstalk, fwChromedp, fwCdproto, fwPromModel, fwPromCommon, fwTestify)},
	"engine/tlscert":            {code: list(), tests: list("engine/enginetest", fwTestify)},
	"engine/internal/commit":    {code: list("jobs"), tests: list(fwTestify)},
	"engine/internal/listen":    {code: list(), tests: list()},
	"engine/internal/memreturn": {code: list("jobs"), tests: list(fwTestify)},
	"engine/internal/ratelog":   {code: list(), tests: list(fwTestify)},
	"engine/internal/token":     {code: list(), tests: list(fwTestify)},

	// The wire-test kit (code that only tests import) and the differential tests.
	"engine/enginetest":        {code: list("codec", "jobs", fwTestify, fwXsys, fwZerolog), tests: list()},
	"engine/enginetest/inproc": {code: list("engine", "engine/enginetest", "engine/node", fwTestify, fwZerolog), tests: list()},
	"engine/difftest":          {code: list(), tests: list("codec", "engine", "engine/enginetest", "engine/enginetest/inproc", fwTestify, fwZerolog)},

	// The robustness suite: the queue's model for porcupine, and the runner
	// (test code: real stalkd processes, faults, histories).
	"engine/robustness/model": {code: list(fwPorcupine), tests: list(fwTestify)},
	"engine/robustness":       {code: list(), tests: list("engine/robustness/model", "engine/enginetest", fwPorcupine, fwTestify)},

	// The programs.
	"cmd/stalkd": {code: list("engine", "engine/node", "jobs", "wal", "wal/raft", fwXsys, fwZerolog),
		tests: list("codec", "engine/enginetest", fwBeanstalk, fwTestify)},
	"cmd/stalkctl": {code: list("cmd/stalkctl/internal/client", "jobs/cluster", "wal", "wal/binlog", fwXsys, fwYaml),
		tests: list("engine", "engine/admin", "engine/embed", "engine/enginetest", "engine/enginetest/inproc", "engine/node", "jobs", fwBeanstalk, fwTestify, fwZerolog)},
	"cmd/stalkctl/internal/client": {code: list("codec"), tests: list()},
	"cmd/examples/gateway":         {code: list("engine", "engine/embed", "engine/node", fwZerolog), tests: list(fwTestify)},

	// Load generator and fuzz targets.
	"benchmarks/loadgen":          {code: list(), tests: list("engine/enginetest", fwTestify)},
	"benchmarks/cmd/stalkd-bench": {code: list("benchmarks/loadgen"), tests: list(fwTestify)},
	"fuzz":                        {code: list(), tests: list("codec", "jobs", "jobs/jobsmodel", "wal", "wal/binlog", "wal/raft", fwTestify)},
}
