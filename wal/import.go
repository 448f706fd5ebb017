package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rs/zerolog"
	twal "github.com/tidwall/wal"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/binlog"
)

// Importing beanstalkd's binlog. A -b directory holding beanstalkd's
// binlog.N files and no log of stalkd's is converted in one durable step:
//
//  1. the binlog is replayed as beanstalkd 1.12 would (package binlog) and
//     a complete stalkd log holding every live job is written and fsynced
//     in DIR/.binlog-import.tmp/ (a crash here leaves the binlog as it
//     was; the next start deletes the half-built log and begins again);
//  2. that directory is renamed DIR/.binlog-import.done/: the commit point;
//  3. the binlog files are moved into DIR/beanstalkd-binlog.imported/ (the
//     name is in .binlog-import.done/target; .1, .2, ... are added if an
//     earlier import left that directory), untouched, and the log's files
//     are moved into DIR; then .binlog-import.done/ is removed. A crash
//     anywhere in this step leaves .binlog-import.done/, and the next start
//     finishes the moves (each is a rename, so doing one twice is harmless).
//
// So a crash leaves either the binlog and no stalkd log, or a complete
// stalkd log; never half of one.
const (
	importTmp    = ".binlog-import.tmp"
	importDone   = ".binlog-import.done"
	importTarget = "target"
	importedName = "beanstalkd-binlog.imported"
)

// ImportOptions configures ImportBinlog. The zero value is usable.
type ImportOptions struct {
	// SegmentSize is the size of the log's segments (Options.SegmentSize).
	SegmentSize int64
	// Logger receives the import's summary line and its warnings.
	Logger zerolog.Logger

	now   func() time.Time // tests
	crash importStep       // tests: fail with errCrash once this step is done
}

// importStep names the points a test may stop an import at, as a crash
// would.
type importStep int

const (
	stepNone    importStep = iota
	stepBuilt              // the log is built in importTmp, not committed
	stepCommit             // renamed to importDone
	stepBinlogs            // the binlog files moved aside, the log not moved in
)

var errCrash = errors.New("wal: import stopped by a test")

// ImportReport says what ImportBinlog did.
type ImportReport struct {
	// Imported is false when there was nothing to import.
	Imported bool
	// Finished is true when the import was one a crash had interrupted
	// after its commit point (the counts are then unknown, zero).
	Finished bool
	// Summary counts the jobs imported per state and tube, in the states
	// they have once restored (a buried job counts one more bury, as
	// beanstalkd's own replay counts it; a delayed job whose deadline has
	// passed is ready).
	Summary binlog.Summary
	// HighestID is the highest id the binlog held: ids continue above it.
	HighestID uint64
	// Files is how many binlog files were read; Problems the damage found
	// (each file read up to its damage); Missing the numbers skipped.
	Files    int
	Problems []binlog.Problem
	Missing  []int
	// MovedTo is where the binlog files are now.
	MovedTo string
}

// ImportBinlog imports beanstalkd's binlog from dir when dir holds binlog
// files and no log of stalkd's (or finishes an import a crash
// interrupted): see the comment above for the steps. It logs one line
// counting the jobs imported per state and tube, and a warning for each
// damaged or missing file. It does nothing when there is nothing to
// import, and refuses (ErrForeignFiles) files of an unknown format version
// or foreign files beside the binlog, and (ErrLocked) a directory that a
// running beanstalkd or stalkd holds. Call it before Open; it holds the
// directory's lock while it works and releases it before returning.
func ImportBinlog(dir string, o ImportOptions) (ImportReport, error) {
	if o.now == nil {
		o.now = time.Now
	}
	c, err := readContents(dir)
	if err != nil || (c.pending == "" && (c.ownLog || len(c.binlogs) == 0)) {
		return ImportReport{}, err
	}
	lk, err := lockDir(dir)
	if err != nil {
		return ImportReport{}, err
	}
	defer lk.unlock()
	if c, err = readContents(dir); err != nil {
		return ImportReport{}, err
	}
	switch c.pending {
	case importDone:
		to, err := finishImport(dir, o.crash)
		if err != nil {
			return ImportReport{}, err
		}
		o.Logger.Warn().Str("dir", dir).Str("moved_to", to).
			Msg("finished an import of beanstalkd's binlog that a crash had interrupted after its commit point")
		return ImportReport{Imported: true, Finished: true, MovedTo: to}, nil
	case importTmp:
		if err := os.RemoveAll(filepath.Join(dir, importTmp)); err != nil {
			return ImportReport{}, fmt.Errorf("wal: import: remove an unfinished import: %w", err)
		}
		o.Logger.Warn().Str("dir", dir).Msg("an import of beanstalkd's binlog was interrupted before its commit point; starting it again")
	}
	if c.ownLog || len(c.binlogs) == 0 {
		return ImportReport{}, nil
	}
	if len(c.foreign) > 0 {
		return ImportReport{}, fmt.Errorf("%w: %s holds beanstalkd's binlog and also %s; refusing to import until they are moved out of the directory",
			ErrForeignFiles, dir, nameList(c.foreign))
	}
	return importBinlog(dir, o)
}

func importBinlog(dir string, o ImportOptions) (ImportReport, error) {
	start := o.now()
	d, err := binlog.ReadDir(dir, 0)
	if err != nil {
		return ImportReport{}, fmt.Errorf("wal: import: %w", err)
	}
	if err := importable(d); err != nil {
		return ImportReport{}, err
	}
	for _, p := range d.Problems {
		o.Logger.Warn().Str("file", p.Path).Int64("offset_bytes", p.Offset).Str("damage", p.Err).
			Msg("damaged beanstalkd binlog file: read up to the damage, as beanstalkd does; the rest of the file is skipped (it is kept in the imported directory)")
	}
	if d.MissingCount > 0 {
		o.Logger.Warn().Str("dir", dir).Ints("missing", d.Missing).Int("missing_files", d.MissingCount).
			Msg("beanstalkd binlog files missing between the first and the last were skipped, as beanstalkd does")
	}
	now := o.now().UnixNano()
	rep := ImportReport{Imported: true, Summary: binlog.Summarize(d.Jobs, now), HighestID: d.MaxID,
		Files: len(d.Files), Problems: d.Problems, Missing: d.Missing}
	tmp := filepath.Join(dir, importTmp)
	if err := os.Mkdir(tmp, 0o750); err != nil {
		return rep, fmt.Errorf("wal: import: %w", err)
	}
	if err := writeImportedLog(tmp, d, o.SegmentSize); err != nil {
		return rep, fmt.Errorf("wal: import: %w", err)
	}
	target, err := importTargetName(dir)
	if err == nil {
		err = writeSynced(filepath.Join(tmp, importTarget), []byte(target+"\n"))
	}
	if err == nil {
		err = syncDir(tmp)
	}
	if err == nil && o.crash == stepBuilt {
		return rep, errCrash
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, importDone))
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return rep, fmt.Errorf("wal: import: %w", err)
	}
	if o.crash == stepCommit {
		return rep, errCrash
	}
	if rep.MovedTo, err = finishImport(dir, o.crash); err != nil {
		return rep, err
	}
	logImport(o.Logger, dir, rep, o.now().Sub(start))
	return rep, nil
}

// importable refuses a binlog stalkd cannot take whole: a file of an
// unknown version (another server's), a tube name or an id the queue
// does not accept.
func importable(d *binlog.Dir) error {
	for _, f := range d.Files {
		if f.Problem != nil && f.Version != binlog.Version5 && f.Version != binlog.Version7 {
			return fmt.Errorf("%w: %s is not a beanstalkd binlog stalkd reads (%s; versions 5 and 7 are read): refusing to import",
				ErrForeignFiles, f.Path, f.Problem.Err)
		}
	}
	for _, j := range d.Jobs {
		if !jobs.ValidTubeName([]byte(j.Tube)) {
			return fmt.Errorf("%w: job %d of the binlog has tube name %q, which the protocol does not allow: refusing to import",
				ErrForeignFiles, j.ID, j.Tube)
		}
	}
	if d.MaxID > 1<<62 {
		return fmt.Errorf("%w: the binlog holds job id %d, beyond what stalkd hands out: refusing to import", ErrForeignFiles, d.MaxID)
	}
	return nil
}

// importRecord is the log record of a job read from the binlog: its state
// as beanstalkd's replay leaves it (a buried job counts one more bury;
// reserved was already read as ready), its body without the CRLF.
func importRecord(j *binlog.Job) jobs.Record {
	r := jobs.Record{
		Kind: jobs.RecPut, ID: j.ID, Tube: j.Tube, State: jobs.Ready, Pri: j.Pri,
		Delay: time.Duration(max(j.Delay, 0)), TTR: time.Duration(max(j.TTR, 0)), Created: j.Created,
		Reserves: j.Reserves, Timeouts: j.Timeouts, Releases: j.Releases, Buries: j.Buries, Kicks: j.Kicks,
		Body: j.Body[:max(len(j.Body)-2, 0)],
	}
	switch j.State {
	case binlog.Buried:
		r.State = jobs.Buried
		r.Buries++
	case binlog.Delayed:
		r.State, r.Deadline = jobs.Delayed, j.Deadline // Restore makes it ready if the deadline has passed
	}
	return r
}

// writeImportedLog writes a whole log of d's jobs into the empty
// directory tmp, fsynced, with a manifest whose id lease starts above
// every id the binlog held.
func writeImportedLog(tmp string, d *binlog.Dir, segmentSize int64) error {
	if segmentSize == 0 {
		segmentSize = DefaultSegmentSize
	}
	st, err := openBulkWriter(tmp, segmentSize)
	if err != nil {
		return err
	}
	defer st.Close()
	var b twal.Batch
	var buf []byte
	idx, pending := uint64(1), 0
	for _, j := range d.Jobs {
		r := importRecord(j)
		buf = AppendRecord(buf[:0], &r)
		b.Write(idx, buf)
		idx++
		if pending += len(buf); pending >= 4<<20 {
			if err := st.WriteBatch(&b); err != nil {
				return err
			}
			pending = 0
		}
	}
	b.Write(idx, appendMeta(buf[:0], meta{logStart: 1, maxID: d.MaxID}))
	if err := st.WriteBatch(&b); err != nil {
		return err
	}
	if err := st.Sync(); err != nil {
		return err
	}
	files, _, err := listSegments(tmp)
	if err != nil {
		return err
	}
	return writeManifest(tmp, manifest{last: files[len(files)-1].start, lastHolds: idx, idLease: d.MaxID})
}

// importTargetName picks the directory the binlog files move to: the
// first of beanstalkd-binlog.imported, .1, .2, ... that does not exist.
func importTargetName(dir string) (string, error) {
	for i := 0; i < 1000; i++ {
		name := importedName
		if i > 0 {
			name += "." + strconv.Itoa(i)
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); os.IsNotExist(err) {
			return name, nil
		}
	}
	return "", fmt.Errorf("too many %s directories in %s", importedName, dir)
}

// finishImport does step 3 (after the commit point): moves the binlog
// files aside and the new log into dir. Idempotent.
func finishImport(dir string, crash importStep) (movedTo string, err error) {
	done := filepath.Join(dir, importDone)
	data, err := os.ReadFile(filepath.Join(done, importTarget))
	if err != nil {
		return "", fmt.Errorf("wal: finish import: %w", err)
	}
	name := string(data[:max(len(data)-1, 0)])
	if name == "" || filepath.Base(name) != name {
		return "", fmt.Errorf("wal: finish import: %s/%s names no directory", done, importTarget)
	}
	to := filepath.Join(dir, name)
	if err := os.MkdirAll(to, 0o750); err != nil {
		return "", fmt.Errorf("wal: finish import: %w", err)
	}
	files, err := binlog.Files(dir)
	if err != nil {
		return "", fmt.Errorf("wal: finish import: %w", err)
	}
	for _, f := range files {
		if err := os.Rename(f.Path, filepath.Join(to, filepath.Base(f.Path))); err != nil {
			return "", fmt.Errorf("wal: finish import: %w", err)
		}
	}
	if err := syncDir(to); err != nil {
		return "", fmt.Errorf("wal: finish import: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("wal: finish import: %w", err)
	}
	if crash == stepBinlogs {
		return "", errCrash
	}
	ents, err := os.ReadDir(done)
	if err != nil {
		return "", fmt.Errorf("wal: finish import: %w", err)
	}
	for _, e := range ents {
		if e.Name() == importTarget {
			continue
		}
		if err := os.Rename(filepath.Join(done, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return "", fmt.Errorf("wal: finish import: %w", err)
		}
	}
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("wal: finish import: %w", err)
	}
	if err := os.RemoveAll(done); err != nil {
		return "", fmt.Errorf("wal: finish import: %w", err)
	}
	return to, syncDir(dir)
}

// logImport writes the import's one summary line: jobs per state, and per
// tube (the first 100 by name; the rest are counted in other_tubes).
func logImport(log zerolog.Logger, dir string, rep ImportReport, took time.Duration) {
	s := rep.Summary
	tubes := zerolog.Dict()
	names := s.TubeNames()
	shown := 0
	for _, n := range names {
		if shown == 100 {
			break
		}
		c := s.Tubes[n]
		tubes.Dict(n, zerolog.Dict().Int("ready", c.Ready).Int("delayed", c.Delayed).Int("buried", c.Buried))
		shown++
	}
	log.Info().Str("dir", dir).Int("jobs", s.Total.Total()).Int("ready", s.Total.Ready).
		Int("delayed", s.Total.Delayed).Int("buried", s.Total.Buried).Dict("tubes", tubes).
		Int("other_tubes", len(names)-shown).Uint64("min_id", s.MinID).Uint64("max_id", s.MaxID).
		Uint64("next_id", rep.HighestID+1).Int("files", rep.Files).Int("damaged_files", len(rep.Problems)).
		Str("moved_to", rep.MovedTo).Float64("took_ms", float64(took)/float64(time.Millisecond)).
		Msg("imported beanstalkd's binlog")
}

// openBulkWriter opens tidwall/wal on the empty directory dir to write an
// imported log in one pass (the journal's own writer appends record by
// record from an event loop; a bulk import has no need of it). The files
// are the journal's format: tidwall/wal's names and binary entries. It
// never fsyncs on its own (NoSync): the caller syncs once at the end.
func openBulkWriter(dir string, segmentSize int64) (*twal.Log, error) {
	w, err := twal.Open(dir, &twal.Options{
		NoSync:           true,
		SegmentSize:      int(segmentSize),
		LogFormat:        twal.Binary,
		SegmentCacheSize: 1,
		DirPerms:         0o750,
		FilePerms:        0o640,
	})
	if err != nil {
		return nil, fmt.Errorf("wal: open segments in %s: %w", dir, err)
	}
	return w, nil
}
