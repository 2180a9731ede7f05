package notebook

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/freeact/desktop/internal/nofollow"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Kinds of transcript entries.
const (
	KindPrompt  = "prompt"  // what the user asked
	KindAnswer  = "answer"  // the model's text
	KindThought = "thought" // the model's thinking
	KindCode    = "code"    // code that ran in the kernel, with its output
	KindTool    = "tool"    // any other tool call, summarised
	KindNote    = "note"    // what happened around the conversation (kernel restored, notebook opened)
	KindSummary = "summary" // the summary that replaced the history before it for the model
	KindTurn    = "turn"    // how long the turn before it took and what it cost
)

// Entry is one piece of a conversation in order.
type Entry struct {
	Kind string
	// Text is the markdown of a prompt, answer, thought or note, or the
	// one-line summary of a tool call.
	Text string
	// Code, Output and Error describe a code cell: the code that ran, the
	// output the model saw (images as ![image](path) lines) and whether it
	// raised.
	Code   string
	Output string
	Error  bool
	// By says who ran a code cell when it was not the model's code as it
	// wrote it: "edited by the user", "run by the user".
	By string
	// Files are the workspace files a code cell or tool call changed, as
	// its checkpoint recorded them.
	Files []FileChange
	// Duration, Cost and Unpriced describe a turn (KindTurn): its time
	// from the prompt to its last message, and what its model calls cost
	// (Cost is nil when none had a known price; Unpriced counts the calls
	// without one).
	Duration time.Duration
	Cost     *float64
	Unpriced int
}

// FileChange is a file an action changed: its path in the workspace and
// "added", "modified" or "deleted".
type FileChange struct {
	Path   string `json:"path"`
	Status string `json:"status"`
}

// filesLine says in one line which files an action changed; "" for none.
func filesLine(fs []FileChange) string {
	if len(fs) == 0 {
		return ""
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		// A file's name may hold a backtick or a line break: neither ends
		// the code span or the line.
		parts[i] = "`" + pathText.Replace(f.Path) + "` (" + f.Status + ")"
	}
	return "*Files changed: " + strings.Join(parts, ", ") + "*"
}

var pathText = strings.NewReplacer("`", "'", "\n", " ", "\r", " ")

// turnLine says how long a turn took and what it cost.
func turnLine(e Entry) string {
	var parts []string
	if e.Duration > 0 {
		parts = append(parts, "took "+e.Duration.Round(100*time.Millisecond).String())
	}
	switch {
	case e.Cost != nil && e.Unpriced > 0:
		parts = append(parts, fmt.Sprintf("cost $%.4f (and %d model calls of unknown price)", *e.Cost, e.Unpriced))
	case e.Cost != nil:
		parts = append(parts, fmt.Sprintf("cost $%.4f", *e.Cost))
	case e.Unpriced > 0:
		parts = append(parts, "cost unknown (no price for the model)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "*Turn " + strings.Join(parts, ", ") + ".*"
}

// Transcript is a conversation ready to be exported.
type Transcript struct {
	Title   string
	Entries []Entry
	// Dir resolves relative image paths (the workspace).
	Dir string
}

// Options choose what an export holds.
type Options struct {
	// Thoughts includes the model's thinking.
	Thoughts bool
}

var imageLineRE = regexp.MustCompile(`(?m)^!\[[^\]\n]*\]\(([^)\n]+)\)[ \t]*\n?`)

// segment is a piece of a cell's output: text or an image path.
type segment struct {
	text  string
	image string
}

// segments splits output at its ![image](path) lines.
func segments(out string) []segment {
	var segs []segment
	last := 0
	for _, m := range imageLineRE.FindAllStringSubmatchIndex(out, -1) {
		if m[0] > last {
			segs = append(segs, segment{text: out[last:m[0]]})
		}
		segs = append(segs, segment{image: out[m[2]:m[3]]})
		last = m[1]
	}
	if last < len(out) {
		segs = append(segs, segment{text: out[last:]})
	}
	return segs
}

var imageMIME = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".svg": "image/svg+xml", ".gif": "image/gif"}

// maxImage bounds an image embedded in an export.
const maxImage = 64 << 20

// image reads a saved image of the workspace (Dir): its MIME type and
// content, or ok false when it is gone, not an image type notebooks show,
// outside the workspace, or reached through a symbolic link. The path
// comes from output the model's code printed, so it is walked from the
// workspace one component at a time without following any link: a link
// images/x.svg -> ../.env embeds nothing.
func (t *Transcript) image(path string) (mime string, data []byte, ok bool) {
	mime = imageMIME[strings.ToLower(filepath.Ext(path))]
	if mime == "" || t.Dir == "" {
		return "", nil, false
	}
	ws, err := filepath.EvalSymlinks(t.Dir)
	if err != nil {
		return "", nil, false
	}
	rel := path
	if filepath.IsAbs(path) {
		if rel, err = filepath.Rel(t.Dir, filepath.Clean(path)); err != nil {
			return "", nil, false
		}
	}
	rel = filepath.Clean(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", nil, false
	}
	dir, err := nofollow.OpenDir(filepath.Join(ws, filepath.Dir(rel)), false)
	if err != nil {
		return "", nil, false
	}
	defer dir.Close()
	f, err := nofollow.Open(dir, filepath.Base(rel), os.O_RDONLY, 0)
	if err != nil {
		return "", nil, false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() > maxImage {
		return "", nil, false
	}
	if data, err = io.ReadAll(io.LimitReader(f, maxImage+1)); err != nil || len(data) > maxImage {
		return "", nil, false
	}
	return mime, data, true
}

var dashesRE = regexp.MustCompile(`(?m)^-{20,}\n`)
var errorLineRE = regexp.MustCompile(`^([A-Za-z_][\w.]*)(?::\s?(.*))?$`)

// splitError separates the traceback at the end of a failed cell's output
// from what the cell printed before it, as the kernel formats it: IPython's
// line of dashes and "Name  Traceback (most recent call last)", or a
// syntax error's "Cell In[n], line m". The last line names the error.
func splitError(out string) (before, ename, evalue string, traceback []string) {
	out = strings.TrimRight(out, "\n")
	start := -1
	if locs := dashesRE.FindAllStringIndex(out, -1); len(locs) > 0 {
		start = locs[len(locs)-1][0]
	} else if i := strings.LastIndex(out, "  Cell In["); i >= 0 && (i == 0 || out[i-1] == '\n') {
		start = i
	} else if i := strings.LastIndex(out, "\n"); i >= 0 {
		start = i + 1
	} else {
		start = 0
	}
	before, tb := out[:start], out[start:]
	tbLines := strings.Split(tb, "\n")
	last := strings.TrimSpace(tbLines[len(tbLines)-1])
	if m := errorLineRE.FindStringSubmatch(last); m != nil {
		ename, evalue = m[1], m[2]
	} else {
		ename, evalue = "Error", last
	}
	return before, ename, evalue, tbLines
}

// Notebook renders the transcript as an nbformat 4.5 notebook: prompts,
// answers, thoughts (with opts.Thoughts), notes and tool calls as markdown
// cells, code as code cells with their outputs (streams, errors, images as
// image/png or their own type).
func (t *Transcript) Notebook(opts Options) *Notebook {
	nb := New()
	if t.Title != "" {
		nb.Metadata["title"] = t.Title
	}
	count := 0
	for _, e := range t.Entries {
		id := fmt.Sprintf("cell-%d", len(nb.Cells)+1)
		switch e.Kind {
		case KindCode:
			count++
			n := count
			c := Cell{ID: id, CellType: Code, Source: e.Code, ExecutionCount: &n, Metadata: map[string]any{}}
			if e.By != "" {
				c.Metadata["freeact"] = map[string]any{"by": e.By}
			}
			c.Outputs = t.outputs(e)
			if len(e.Files) > 0 {
				c.Metadata["freeact"] = withFiles(c.Metadata["freeact"], e.Files)
			}
			nb.Cells = append(nb.Cells, c)
			if line := filesLine(e.Files); line != "" {
				nb.Cells = append(nb.Cells, Cell{ID: fmt.Sprintf("cell-%d", len(nb.Cells)+1), CellType: Markdown, Source: line, Metadata: map[string]any{}})
			}
		default:
			md := t.markdown(e, opts)
			if md == "" {
				continue
			}
			nb.Cells = append(nb.Cells, Cell{ID: id, CellType: Markdown, Source: md, Metadata: map[string]any{}})
		}
	}
	return nb
}

// withFiles adds the files a cell changed to its freeact metadata.
func withFiles(meta any, files []FileChange) map[string]any {
	m, _ := meta.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	m["files_changed"] = files
	return m
}

// outputs turns a code entry's output into notebook outputs.
func (t *Transcript) outputs(e Entry) []Output {
	out := e.Output
	var errOut *Output
	if e.Error && strings.TrimSpace(out) != "" {
		before, ename, evalue, tb := splitError(out)
		errOut = &Output{OutputType: Error, Ename: ename, Evalue: evalue, Traceback: tb}
		out = before
	}
	var outs []Output
	for _, s := range segments(out) {
		if s.image == "" {
			if s.text != "" {
				outs = append(outs, Output{OutputType: Stream, Name: "stdout", Text: s.text})
			}
			continue
		}
		mime, data, ok := t.image(s.image)
		if !ok {
			outs = append(outs, Output{OutputType: Stream, Name: "stdout", Text: fmt.Sprintf("![image](%s)\n", s.image)})
			continue
		}
		d := map[string]string{"text/plain": "<image>"}
		if mime == "image/svg+xml" {
			d[mime] = string(data)
		} else {
			d[mime] = base64.StdEncoding.EncodeToString(data)
		}
		outs = append(outs, Output{OutputType: DisplayData, Data: d})
	}
	if errOut != nil {
		outs = append(outs, *errOut)
	}
	// Adjacent streams (text around a dropped image) become one.
	var merged []Output
	for _, o := range outs {
		if n := len(merged); n > 0 && o.OutputType == Stream && merged[n-1].OutputType == Stream {
			merged[n-1].Text += o.Text
			continue
		}
		merged = append(merged, o)
	}
	return merged
}

// markdown is the markdown of a non-code entry, its images turned into
// links (see linkRemote); "" leaves it out.
func (t *Transcript) markdown(e Entry, opts Options) string {
	if src := t.markdownSource(e, opts); src != "" {
		return linkRemote(src)
	}
	return ""
}

func (t *Transcript) markdownSource(e Entry, opts Options) string {
	switch e.Kind {
	case KindPrompt:
		return "**You:**\n\n" + e.Text
	case KindAnswer:
		return e.Text
	case KindThought:
		if !opts.Thoughts || strings.TrimSpace(e.Text) == "" {
			return ""
		}
		return "<details><summary>Thoughts</summary>\n\n" + e.Text + "\n\n</details>"
	case KindTool:
		line := "*Tool call: " + e.Text + "*"
		if files := filesLine(e.Files); files != "" {
			line += "\n\n" + files
		}
		return line
	case KindNote:
		return quote(e.Text)
	case KindSummary:
		return quote("**Summary that replaced the conversation above for the model** (" + e.Text + ")")
	case KindTurn:
		return turnLine(e)
	}
	return ""
}

func quote(text string) string {
	return "> " + strings.ReplaceAll(strings.TrimSpace(text), "\n", "\n> ")
}

// Fence returns a Markdown code fence for text: three backticks, or more
// than the longest run of backticks in text.
func Fence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

func fenced(text, lang string) string {
	f := Fence(text)
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}

// Markdown renders the transcript as a Markdown document; images stay
// links to their files.
func (t *Transcript) Markdown(opts Options) string {
	var parts []string
	if t.Title != "" {
		parts = append(parts, "# "+t.Title)
	}
	for _, e := range t.Entries {
		if e.Kind != KindCode {
			if md := t.markdown(e, opts); md != "" {
				parts = append(parts, md)
			}
			continue
		}
		head := "**Code**"
		if e.By != "" {
			head += " (" + e.By + ")"
		}
		parts = append(parts, head+"\n\n"+fenced(e.Code, "python"))
		for _, s := range segments(e.Output) {
			switch {
			case remoteAddr(s.image):
				parts = append(parts, fmt.Sprintf("[image: image](%s)", s.image))
			case s.image != "":
				parts = append(parts, fmt.Sprintf("![image](%s)", s.image))
			case strings.TrimSpace(s.text) != "":
				parts = append(parts, fenced(s.text, ""))
			}
		}
		if files := filesLine(e.Files); files != "" {
			parts = append(parts, files)
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(remoteImages{}, 100))))

// remoteImages turns every image of the Markdown whose address is not a
// data: URL into a link to it: an export loads nothing (a model's
// ![x](http://host/?secret) would otherwise call out when the page is
// opened), and images of the workspace are embedded separately.
type remoteImages struct{}

func (remoteImages) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var imgs []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering && !bytes.HasPrefix(bytes.ToLower(bytes.TrimSpace(img.Destination)), []byte("data:")) {
			imgs = append(imgs, img)
		}
		return ast.WalkContinue, nil
	})
	for _, img := range imgs {
		link := ast.NewLink()
		link.Destination, link.Title = img.Destination, img.Title
		link.AppendChild(link, ast.NewString([]byte("image: ")))
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			link.AppendChild(link, c)
			c = next
		}
		img.Parent().ReplaceChild(img.Parent(), img, link)
	}
}

// HTML renders the transcript as one self-contained page: Markdown through
// goldmark (raw HTML in the conversation is left out), images embedded as
// data URLs.
func (t *Transcript) HTML(opts Options) (string, error) {
	var body bytes.Buffer
	render := func(src string) error { return md.Convert([]byte(src), &body) }
	if t.Title != "" {
		fmt.Fprintf(&body, "<h1>%s</h1>\n", html.EscapeString(t.Title))
	}
	for _, e := range t.Entries {
		if e.Kind == KindThought && opts.Thoughts && strings.TrimSpace(e.Text) != "" {
			body.WriteString("<details class=\"thoughts\"><summary>Thoughts</summary>\n")
			if err := render(e.Text); err != nil {
				return "", err
			}
			body.WriteString("</details>\n")
			continue
		}
		if e.Kind != KindCode {
			if src := t.markdown(e, Options{}); src != "" {
				if err := render(src); err != nil {
					return "", err
				}
			}
			continue
		}
		by := ""
		if e.By != "" {
			by = " <span class=\"by\">(" + html.EscapeString(e.By) + ")</span>"
		}
		fmt.Fprintf(&body, "<div class=\"cell\"><div class=\"label\">Code%s</div><pre class=\"code\"><code class=\"language-python\">%s</code></pre>\n", by, html.EscapeString(strings.TrimRight(e.Code, "\n")))
		for _, s := range segments(e.Output) {
			switch {
			case s.image != "":
				if mime, data, ok := t.image(s.image); ok {
					fmt.Fprintf(&body, "<img alt=\"image\" src=\"data:%s;base64,%s\">\n", mime, base64.StdEncoding.EncodeToString(data))
				} else {
					fmt.Fprintf(&body, "<p class=\"missing\">image %s (file not found)</p>\n", html.EscapeString(s.image))
				}
			case strings.TrimSpace(s.text) != "":
				class := "output"
				if e.Error {
					class += " error"
				}
				fmt.Fprintf(&body, "<pre class=\"%s\">%s</pre>\n", class, html.EscapeString(strings.TrimRight(s.text, "\n")))
			}
		}
		if files := filesLine(e.Files); files != "" {
			if err := render(files); err != nil {
				return "", err
			}
		}
		body.WriteString("</div>\n")
	}
	title := t.Title
	if title == "" {
		title = "freeact conversation"
	}
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>` + html.EscapeString(title) + `</title>
<style>
body{font:15px/1.55 system-ui,sans-serif;max-width:860px;margin:2em auto;padding:0 1em;color:#1c1c1a;background:#fafaf9}
pre{padding:.6em .9em;overflow:auto;border-radius:8px;font:13px/1.45 ui-monospace,monospace;white-space:pre-wrap}
pre.code{background:#f1f1ef}pre.output{background:#fff;border:1px solid #e4e4e0}pre.error{color:#b42318}
.cell{margin:1em 0}.label{font-size:12px;color:#6b6b66}img{max-width:100%;display:block;margin:.5em 0}
blockquote{border-left:3px solid #8b87f5;margin-left:0;padding-left:1em;color:#4a4a46}
@media (prefers-color-scheme: dark){body{background:#1c1c1a;color:#e8e8e3}pre.code{background:#2a2a27}pre.output{background:#222220;border-color:#3a3a36}.label,blockquote{color:#a3a39c}}
</style></head><body>
` + body.String() + `</body></html>
`, nil
}
