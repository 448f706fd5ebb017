package wal

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/stalkd/stalkd/wal/binlog"
)

// ErrForeignFiles is wrapped by the error Open (and ImportBinlog) returns
// when the directory holds files stalkd does not write: starting anyway
// would ignore them, and whatever jobs they hold, without a word. The
// message names them.
var ErrForeignFiles = errors.New("wal: the directory holds files stalkd does not recognise")

// What a -b directory may hold. stalkd's own files: its segments (named
// after their first index, 20 digits), tidwall/wal's files of an
// unfinished truncation (<segment>.START, <segment>.END, TEMP), the
// manifest (and manifest.tmp), the lock, the space reserve (and
// reserve.tmp), salvage-<time>/ directories (Options.Salvage), and the
// import's own: beanstalkd-binlog.imported*/ (the binlog files imported),
// .binlog-import.tmp/ and .binlog-import.done/ (an import under way). A
// cluster member's raft/ directory is recognised too (a single-node server
// does not read it, and says so). Besides: lost+found (a file system's
// root) and .nfs* (NFS's files deleted while open). beanstalkd's binlog.N
// files are recognised, and imported by ImportBinlog; any other file is
// foreign.
var (
	segmentName  = regexp.MustCompile(`^[0-9]{20}(\.START|\.END)?$`)
	salvageName  = regexp.MustCompile(`^salvage-[0-9]+$`)
	ownFileNames = map[string]bool{
		"TEMP": true, manifestName: true, manifestName + ".tmp": true, "lock": true,
		reserveName: true, reserveName + ".tmp": true, "lost+found": true,
		importTmp: true, importDone: true, "raft": true,
	}
)

// dirContents sorts a -b directory's entries.
type dirContents struct {
	ownLog  bool     // stalkd's segments or manifest
	binlogs []string // beanstalkd's binlog.N files
	foreign []string // anything else stalkd does not recognise
	raft    bool     // a cluster member's raft/ directory
	pending string   // an import under way: importTmp or importDone
}

func readContents(dir string) (dirContents, error) {
	var c dirContents
	ents, err := os.ReadDir(dir)
	if err != nil {
		return c, fmt.Errorf("wal: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		if _, ok := binlog.ParseName(name); ok {
			c.binlogs = append(c.binlogs, name)
			continue
		}
		switch {
		case name == importTmp || name == importDone:
			if c.pending != importDone {
				c.pending = name
			}
		case name == "raft":
			c.raft = true
		case segmentName.MatchString(name) || name == manifestName:
			c.ownLog = true
		case ownFileNames[name], salvageName.MatchString(name), strings.HasPrefix(name, importedName),
			strings.HasPrefix(name, ".nfs"):
		default:
			c.foreign = append(c.foreign, name)
		}
	}
	sort.Strings(c.foreign)
	sort.Slice(c.binlogs, func(i, j int) bool {
		a, _ := binlog.ParseName(c.binlogs[i])
		b, _ := binlog.ParseName(c.binlogs[j])
		return a < b
	})
	return c, nil
}

// check refuses what Open must not start on: foreign files, and
// beanstalkd's binlog files that were not imported (ImportBinlog imports
// them when the directory holds no log of stalkd's yet).
func (c dirContents) check(dir string) error {
	if len(c.foreign) > 0 {
		return fmt.Errorf("%w: %s holds %s; stalkd would start without whatever they hold. "+
			"Move them out of the directory (if they are another server's log, see cmd/stalkd/SWITCHING.md)",
			ErrForeignFiles, dir, nameList(c.foreign))
	}
	if c.pending != "" {
		return fmt.Errorf("%w: %s holds %s, an import of beanstalkd's binlog under way: ImportBinlog finishes it",
			ErrForeignFiles, dir, c.pending)
	}
	if len(c.binlogs) > 0 {
		how := "stalkd imports them when it starts on a directory holding no log of its own"
		if c.ownLog {
			how = "they were written after stalkd's log (beanstalkd ran here after stalkd); " +
				"inspect them with 'stalkctl binlog inspect', then move them out of the directory"
		}
		return fmt.Errorf("%w: %s holds beanstalkd's binlog files %s: %s",
			ErrForeignFiles, dir, nameList(c.binlogs), how)
	}
	return nil
}

// nameList names up to ten entries, and how many more there are.
func nameList(names []string) string {
	const show = 10
	s := strings.Join(names[:min(len(names), show)], ", ")
	if len(names) > show {
		s += fmt.Sprintf(" and %d more", len(names)-show)
	}
	return s
}

// HoldsLog reports whether dir holds a log of stalkd's (segments or a
// manifest), without reading it.
func HoldsLog(dir string) (bool, error) {
	c, err := readContents(dir)
	return c.ownLog, err
}
