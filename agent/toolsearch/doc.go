// Package toolsearch lets the model find Python tools under
// .freeact/generated: the modules generated from MCP servers (mcptools) and
// the tools saved from code actions (gentools).
//
// Basic search lists categories and the tools of chosen categories with a
// one-line description and the module path the model can read further.
// Hybrid search ranks tools for a query by BM25 (SQLite FTS5 through
// modernc.org/sqlite, pure Go) and by cosine similarity of embeddings,
// fused by reciprocal rank fusion. Its index lives in .freeact/search.db,
// is brought up to date when opened and follows file changes (fsnotify), so
// a tool saved by a code action can be found a moment later.
package toolsearch
