package toolsearch

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, with FTS5
)

// Search modes.
const (
	ModeBM25   = "bm25"
	ModeVector = "vector"
	ModeHybrid = "hybrid"
)

// rrfK is the constant of reciprocal rank fusion: a result at rank r (from
// 1) adds weight/(rrfK + r).
const rrfK = 60

// IndexOptions configures Open.
type IndexOptions struct {
	// Dir is the generated folder (mcptools/ and gentools/ below it).
	Dir string
	// DBPath is the SQLite file, e.g. .freeact/search.db.
	DBPath   string
	Embedder Embedder
	// BM25Weight and VecWeight weigh the two rankings in hybrid mode;
	// zero means 1.
	BM25Weight, VecWeight float64
	// NoSync skips bringing the index up to date in Open.
	NoSync bool
	// Log receives sync failures of the watcher. Default: discard.
	Log *slog.Logger
}

// Index is the hybrid search index. Its methods are safe for concurrent
// use.
type Index struct {
	opts IndexOptions
	db   *sql.DB

	syncMu sync.Mutex // one Sync at a time

	mu      sync.RWMutex
	entries []Entry
	byID    map[string]int
	vecs    []float32 // len(entries) * dim; zero rows for tools without a vector

	watchStop context.CancelFunc
	watchDone chan struct{}
}

// Open opens (creating when needed) the index at opts.DBPath and, unless
// NoSync, brings it up to date with the tool files.
func Open(ctx context.Context, opts IndexOptions) (*Index, error) {
	if opts.Embedder == nil {
		return nil, errors.New("open tool search index: no embedder")
	}
	if opts.BM25Weight == 0 {
		opts.BM25Weight = 1
	}
	if opts.VecWeight == 0 {
		opts.VecWeight = 1
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := os.MkdirAll(filepath.Dir(opts.DBPath), 0o755); err != nil {
		return nil, fmt.Errorf("open tool search index: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+opts.DBPath+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, fmt.Errorf("open tool search index %s: %w", opts.DBPath, err)
	}
	ix := &Index{opts: opts, db: db}
	if err := ix.init(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open tool search index %s: %w", opts.DBPath, err)
	}
	if !opts.NoSync {
		if err := ix.Sync(ctx); err != nil {
			_ = db.Close()
			return nil, err
		}
	} else if err := ix.load(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open tool search index %s: %w", opts.DBPath, err)
	}
	return ix, nil
}

func (ix *Index) init(ctx context.Context) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS tools (id TEXT PRIMARY KEY, source TEXT NOT NULL, category TEXT NOT NULL,
			name TEXT NOT NULL, module TEXT NOT NULL, file TEXT NOT NULL, description TEXT NOT NULL,
			hash TEXT NOT NULL, embedding BLOB)`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS tools_fts USING fts5(id UNINDEXED, name, category, description, tokenize='unicode61')`,
	} {
		if _, err := ix.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create tables: %w", err)
		}
	}
	// Vectors of another model are useless: drop them to be made again.
	var model string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'embedder'`).Scan(&model)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if model != ix.opts.Embedder.Name() {
		if _, err := ix.db.ExecContext(ctx, `UPDATE tools SET embedding = NULL`); err != nil {
			return err
		}
		if _, err := ix.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES ('embedder', ?)`, ix.opts.Embedder.Name()); err != nil {
			return err
		}
	}
	return nil
}

// embedText is what a tool's vector is made from.
func embedText(e Entry) string {
	return e.Name + " (" + e.Category + ")\n" + e.Description
}

// Sync brings the index up to date with the tool files: new and changed
// tools are indexed (and embedded), removed ones dropped.
func (ix *Index) Sync(ctx context.Context) error {
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	entries, err := Scan(ix.opts.Dir)
	if err != nil {
		return fmt.Errorf("sync tool search index: %w", err)
	}
	have := map[string]string{} // id -> hash, for rows with a vector
	rows, err := ix.db.QueryContext(ctx, `SELECT id, hash, embedding IS NOT NULL FROM tools`)
	if err != nil {
		return fmt.Errorf("sync tool search index: %w", err)
	}
	var stale []string
	for rows.Next() {
		var id, hash string
		var embedded bool
		if err := rows.Scan(&id, &hash, &embedded); err != nil {
			rows.Close()
			return fmt.Errorf("sync tool search index: %w", err)
		}
		if embedded {
			have[id] = hash
		} else {
			stale = append(stale, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sync tool search index: %w", err)
	}
	var changed []Entry
	keep := map[string]bool{}
	for _, e := range entries {
		keep[e.ID] = true
		if h, ok := have[e.ID]; !ok || h != e.Hash {
			changed = append(changed, e)
		}
	}
	var gone []string
	for id := range have {
		if !keep[id] {
			gone = append(gone, id)
		}
	}
	for _, id := range stale {
		if !keep[id] {
			gone = append(gone, id)
		}
	}
	if len(changed) > 0 || len(gone) > 0 {
		if err := ix.write(ctx, changed, gone); err != nil {
			return fmt.Errorf("sync tool search index: %w", err)
		}
	}
	if err := ix.load(ctx); err != nil {
		return fmt.Errorf("sync tool search index: %w", err)
	}
	return nil
}

func (ix *Index) write(ctx context.Context, changed []Entry, gone []string) error {
	texts := make([]string, len(changed))
	for i, e := range changed {
		texts[i] = embedText(e)
	}
	var vecs [][]float32
	if len(texts) > 0 {
		var err error
		if vecs, err = ix.opts.Embedder.Embed(ctx, texts, ForDocument); err != nil {
			return err
		}
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, id := range gone {
		if _, err := tx.ExecContext(ctx, `DELETE FROM tools WHERE id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tools_fts WHERE id = ?`, id); err != nil {
			return err
		}
	}
	for i, e := range changed {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tools (id, source, category, name, module, file, description, hash, embedding)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.ID, e.Source, e.Category, e.Name, e.Module, e.File, e.Description, e.Hash, encodeVec(vecs[i])); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tools_fts WHERE id = ?`, e.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tools_fts (id, name, category, description) VALUES (?, ?, ?, ?)`,
			e.ID, e.Name, e.Category, e.Description); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// load reads the index into memory for vector search and lookups.
func (ix *Index) load(ctx context.Context) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, source, category, name, module, file, description, hash, embedding FROM tools ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	dim := ix.opts.Embedder.Dim()
	var entries []Entry
	var vecs []float32
	for rows.Next() {
		var e Entry
		var blob []byte
		if err := rows.Scan(&e.ID, &e.Source, &e.Category, &e.Name, &e.Module, &e.File, &e.Description, &e.Hash, &blob); err != nil {
			return err
		}
		entries = append(entries, e)
		v := decodeVec(blob)
		if len(v) != dim {
			v = make([]float32, dim)
		}
		vecs = append(vecs, v...)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		byID[e.ID] = i
	}
	ix.mu.Lock()
	ix.entries, ix.byID, ix.vecs = entries, byID, vecs
	ix.mu.Unlock()
	return nil
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// Hit is a search result.
type Hit struct {
	Entry
	Score float64
}

// Search ranks the tools for query in mode (bm25, vector or hybrid; ""
// means hybrid) and returns the best limit.
func (ix *Index) Search(ctx context.Context, query, mode string, limit int) ([]Hit, error) {
	if mode == "" {
		mode = ModeHybrid
	}
	if mode != ModeBM25 && mode != ModeVector && mode != ModeHybrid {
		return nil, fmt.Errorf("unknown search mode %q: use bm25, vector or hybrid", mode)
	}
	if limit < 1 {
		limit = 5
	}
	depth := max(limit*4, 50)
	scores := map[string]float64{}
	if mode != ModeVector {
		ids, err := ix.bm25(ctx, query, depth)
		if err != nil {
			return nil, err
		}
		for r, id := range ids {
			scores[id] += ix.opts.BM25Weight / float64(rrfK+r+1)
		}
	}
	if mode != ModeBM25 {
		ids, err := ix.vector(ctx, query, depth)
		if err != nil {
			return nil, err
		}
		for r, id := range ids {
			scores[id] += ix.opts.VecWeight / float64(rrfK+r+1)
		}
	}
	ix.mu.RLock()
	hits := make([]Hit, 0, len(scores))
	for id, s := range scores {
		if i, ok := ix.byID[id]; ok {
			hits = append(hits, Hit{Entry: ix.entries[i], Score: s})
		}
	}
	ix.mu.RUnlock()
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return hits[:min(limit, len(hits))], nil
}

// ftsQuery turns free text into an FTS5 query of its words (each quoted, so
// no word is read as an operator), any of which may match; longer words
// also match as prefixes.
func ftsQuery(text string) string {
	var parts []string
	for _, w := range words(text) {
		q := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		if len(w) >= 3 {
			q += "*"
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " OR ")
}

func (ix *Index) bm25(ctx context.Context, query string, n int) ([]string, error) {
	q := ftsQuery(query)
	if q == "" {
		return nil, nil
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT id FROM tools_fts WHERE tools_fts MATCH ? ORDER BY bm25(tools_fts, 0.0, 5.0, 2.0, 1.0) LIMIT ?`, q, n)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (ix *Index) vector(ctx context.Context, query string, n int) ([]string, error) {
	qv, err := ix.opts.Embedder.Embed(ctx, []string{query}, ForQuery)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	q := qv[0]
	dim := len(q)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if dim != ix.opts.Embedder.Dim() {
		return nil, fmt.Errorf("vector search: query vector has %d numbers, want %d", dim, ix.opts.Embedder.Dim())
	}
	type scored struct {
		i int
		s float32
	}
	top := make([]scored, 0, n+1)
	for i := range ix.entries {
		s := dot(q, ix.vecs[i*dim:(i+1)*dim])
		if s <= 0 || (len(top) == n && s <= top[len(top)-1].s) {
			continue
		}
		// Insert into the sorted top list.
		j, _ := slices.BinarySearchFunc(top, s, func(a scored, t float32) int {
			if a.s > t {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, j, scored{i, s})
		if len(top) > n {
			top = top[:n]
		}
	}
	ids := make([]string, len(top))
	for k, t := range top {
		ids[k] = ix.entries[t.i].ID
	}
	return ids, nil
}

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Len is the number of indexed tools.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.entries)
}

// Watch follows changes under the generated folder and syncs the index a
// moment after they stop, until Close. Folders made later are followed too.
func (ix *Index) Watch() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch tool folders: %w", err)
	}
	for _, src := range []string{MCPTools, GenTools} {
		if err := os.MkdirAll(filepath.Join(ix.opts.Dir, src), 0o755); err != nil {
			_ = w.Close()
			return fmt.Errorf("watch tool folders: %w", err)
		}
	}
	addTree(w, ix.opts.Dir)
	ctx, stop := context.WithCancel(context.Background())
	ix.watchStop, ix.watchDone = stop, make(chan struct{})
	go ix.follow(ctx, w)
	return nil
}

// addTree watches dir and its folders (Python caches left out).
func addTree(w *fsnotify.Watcher, dir string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == "__pycache__" || (strings.HasPrefix(d.Name(), ".") && p != dir) {
			return filepath.SkipDir
		}
		_ = w.Add(p)
		return nil
	})
}

func (ix *Index) follow(ctx context.Context, w *fsnotify.Watcher) {
	defer close(ix.watchDone)
	defer w.Close()
	const quiet = 150 * time.Millisecond
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if strings.Contains(ev.Name, "__pycache__") {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					addTree(w, ev.Name)
				}
			}
			timer.Reset(quiet)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			ix.opts.Log.Warn("watching tool folders", "err", err)
		case <-timer.C:
			sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			if err := ix.Sync(sctx); err != nil && ctx.Err() == nil {
				ix.opts.Log.Warn("tool search index not updated", "err", err)
			}
			cancel()
		}
	}
}

// Close stops watching and closes the database.
func (ix *Index) Close() error {
	if ix.watchStop != nil {
		ix.watchStop()
		<-ix.watchDone
	}
	if err := ix.db.Close(); err != nil {
		return fmt.Errorf("close tool search index: %w", err)
	}
	return nil
}
