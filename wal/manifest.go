package wal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The manifest. The log's own records cannot say where the log ends: a
// deleted or emptied last segment takes its metas with it. DIR/manifest is
// a small text file that can:
//
//	stalkd-wal-manifest 2
//	last 20          first entry (name) of the last segment file
//	last_holds 35    the log holds every entry up to this one (fsynced)
//	id_lease 4096    no id above this one was ever handed out (lease.go)
//	crc32c 1a2b3c4d  checksum of the lines above
//
// It is replaced atomically (write manifest.tmp, fsync, rename, fsync the
// directory), one writer at a time (Log.manMu): at Open; by the sync
// goroutine once a new last segment's predecessors are fsynced and at the
// first fsync that makes an entry of a new last segment durable (so
// last_holds always lies in the last segment once it holds anything); by
// the id lease for each block of ids, and at Close to give back the rest
// (these keep last and last_holds as they were). Open refuses a log whose
// segments end before last (the last segment file is missing) or whose
// entries end before last_holds (the last segment was truncated or
// emptied); damage after last_holds is a torn tail as before. Newer
// segments than last are fine (a crash before the manifest caught up). A
// log without a manifest (written by an older version) is accepted and
// given one.
//
// Versions: 1 had no id_lease; 2 requires it. Both are read forever
// (testdata/manifest-v1 and manifest-v2 pin them); only version 2 is
// written. A build that knows only version 1 refuses a version 2 manifest
// as damaged (it starts with -S, ignoring it).

const (
	manifestName      = "manifest"
	manifestVersion   = "stalkd-wal-manifest 2"
	manifestVersionV1 = "stalkd-wal-manifest 1"
)

// manifest is what DIR/manifest says. Guarded by Log.manMu.
type manifest struct {
	last      uint64 // first index of the last segment file
	lastHolds uint64 // highest entry known fsynced when it was written
	idLease   uint64 // highest id that may have been handed out (0 in version 1)
}

// marshal renders m with its checksum, in the current version.
func (m manifest) marshal() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nlast %d\nlast_holds %d\nid_lease %d\n", manifestVersion, m.last, m.lastHolds, m.idLease)
	fmt.Fprintf(&b, "crc32c %08x\n", crc32.Checksum(b.Bytes(), castagnoli))
	return b.Bytes()
}

var errManifest = errors.New("malformed manifest")

// parseManifest reads what marshal wrote, refusing anything else.
func parseManifest(data []byte) (manifest, error) {
	i := bytes.LastIndex(data, []byte("crc32c "))
	if i < 0 {
		return manifest{}, fmt.Errorf("%w: no checksum", errManifest)
	}
	sum, err := strconv.ParseUint(strings.TrimSpace(string(data[i+len("crc32c "):])), 16, 32)
	if err != nil || uint32(sum) != crc32.Checksum(data[:i], castagnoli) {
		return manifest{}, fmt.Errorf("%w: checksum mismatch", errManifest)
	}
	var m manifest
	seen := map[string]bool{}
	want := []string{"last", "last_holds", "id_lease"}
	sc := bufio.NewScanner(bytes.NewReader(data[:i]))
	for n := 0; sc.Scan(); n++ {
		line := sc.Text()
		if n == 0 {
			switch line {
			case manifestVersion:
			case manifestVersionV1:
				want = want[:2]
			default:
				return manifest{}, fmt.Errorf("%w: unknown version %q", errManifest, line)
			}
			continue
		}
		key, val, ok := strings.Cut(line, " ")
		v, err := strconv.ParseUint(val, 10, 64)
		if !ok || err != nil || seen[key] {
			return manifest{}, fmt.Errorf("%w: line %q", errManifest, line)
		}
		seen[key] = true
		switch key {
		case "last":
			m.last = v
		case "last_holds":
			m.lastHolds = v
		case "id_lease":
			m.idLease = v
		default:
			return manifest{}, fmt.Errorf("%w: unknown field %q", errManifest, key)
		}
	}
	if len(seen) != len(want) {
		return manifest{}, fmt.Errorf("%w: fields %v expected", errManifest, want)
	}
	for _, k := range want {
		if !seen[k] {
			return manifest{}, fmt.Errorf("%w: fields %v expected", errManifest, want)
		}
	}
	return m, nil
}

// readManifest returns dir's manifest; found is false when there is none.
func readManifest(dir string) (m manifest, found bool, err error) {
	path := filepath.Join(dir, manifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return manifest{}, false, nil
	}
	if err != nil {
		return manifest{}, false, fmt.Errorf("wal: %w", err)
	}
	m, err = parseManifest(data)
	if err != nil {
		return manifest{}, false, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	return m, true, nil
}

// writeManifest replaces dir's manifest atomically and durably.
func writeManifest(dir string, m manifest) error {
	path := filepath.Join(dir, manifestName)
	tmp := path + ".tmp"
	err := writeSynced(tmp, m.marshal())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("wal: write %s: %w", path, err)
	}
	return nil
}

// writeSynced writes data to a new file at path and fsyncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// noteTail brings the manifest up to date after an fsync, when a new last
// segment appeared and every segment before it is fsynced (the sync
// goroutine fsyncs a full segment once the writer moved past it, whatever
// the policy), or the first entry of the last segment became durable. The
// fsync policy is not changed: with -F the second happens only at fsyncs
// compaction or the id lease ask for. Sync goroutine only (or Close).
func (l *Log) noteTail() {
	l.manMu.Lock()
	defer l.manMu.Unlock()
	l.mu.Lock()
	tail, durable, man := l.syncedTail, l.durableIndex, l.man
	l.mu.Unlock()
	// The sync that set syncedTail fsynced the directory after tail's
	// segment file was created: its name is durable before the manifest
	// names it.
	if tail <= man.last && (durable < tail || man.lastHolds >= tail) {
		return
	}
	m := manifest{last: tail, lastHolds: max(durable, tail-1, man.lastHolds), idLease: man.idLease}
	if err := l.hook.writeManifest(l.dir, m); err != nil {
		l.manifestFailed(err)
		return
	}
	l.manFailed = false
	l.man = m
}

// recordLease writes the manifest with idLease end: the id lease's persist
// (it fsyncs whatever the policy). Safe for concurrent use with the
// writer's manifest updates.
func (l *Log) recordLease(end uint64) error {
	l.manMu.Lock()
	defer l.manMu.Unlock()
	m := l.man
	m.idLease = end
	if err := l.hook.writeManifest(l.dir, m); err != nil {
		return err
	}
	l.man = m
	return nil
}

// manifestFailed logs a failed manifest update once. The old manifest is
// still true (it names an older last segment and fewer entries), and the
// next sync retries. Sync goroutine only.
func (l *Log) manifestFailed(err error) {
	if !l.manFailed {
		l.log.Error().Err(err).Msg("cannot update the manifest; retrying after each write")
	}
	l.manFailed = true
}
