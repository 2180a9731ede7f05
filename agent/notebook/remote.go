package notebook

import (
	"bytes"
	"html"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	xhtml "golang.org/x/net/html"
)

// plainMD parses Markdown as written, without the transformer of md that
// rewrites images in the tree.
var plainMD = goldmark.New(goldmark.WithExtensions(extension.GFM))

// linkRemote returns the Markdown src with every image turned into a link,
// so that a notebook or Markdown export loads nothing when opened (a
// model's ![x](http://host/?secret) would otherwise call out from
// Jupyter). It edits the source where goldmark's tree puts each node:
// ![alt](u) becomes [image: alt](u), and in raw HTML an <img src=u> becomes
// <a href="u">image: alt</a> while any other tag that loads something
// (src, srcset, style, href outside <a>, script, iframe…) is shown as
// text. data: images load nothing and stay. What cannot be made safe in a
// few passes is shown as a code block.
func linkRemote(src string) string {
	b := []byte(src)
	for range 3 {
		edits, ok := remoteEdits(b)
		if !ok {
			break
		}
		if len(edits) == 0 {
			return string(b)
		}
		b = applyEdits(b, edits)
	}
	return fenced(src, "")
}

type edit struct {
	start, stop int
	with        []byte
}

// remoteEdits lists the edits that turn the images of the Markdown b into
// links; ok is false when a node's place in b is unknown.
func remoteEdits(b []byte) (edits []edit, ok bool) {
	doc := plainMD.Parser().Parse(text.NewReader(b))
	ok = true
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var start, stop int
		switch n := n.(type) {
		case *ast.Image:
			if isData(n.Destination) {
				return ast.WalkContinue, nil
			}
			p := n.Pos()
			if p < 0 || !bytes.HasPrefix(b[p:], []byte("![")) {
				ok = false
				return ast.WalkStop, nil
			}
			edits = append(edits, edit{p, p + 2, []byte("[image: ")})
			return ast.WalkContinue, nil
		case *ast.RawHTML:
			if n.Segments.Len() == 0 {
				return ast.WalkContinue, nil
			}
			start, stop = n.Segments.At(0).Start, n.Segments.At(n.Segments.Len()-1).Stop
		case *ast.HTMLBlock:
			lines := n.Lines()
			if lines.Len() == 0 {
				return ast.WalkContinue, nil
			}
			start, stop = lines.At(0).Start, lines.At(lines.Len()-1).Stop
			if n.HasClosure() {
				stop = max(stop, n.ClosureLine.Stop)
			}
		default:
			return ast.WalkContinue, nil
		}
		if safe, changed := linkHTML(b[start:stop]); changed {
			edits = append(edits, edit{start, stop, safe})
		}
		return ast.WalkSkipChildren, nil
	})
	return edits, ok
}

func applyEdits(b []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(x, y edit) int { return x.start - y.start })
	var out []byte
	at := 0
	for _, e := range edits {
		if e.start < at { // overlapping: the next pass sees what is left
			continue
		}
		out = append(append(out, b[at:e.start]...), e.with...)
		at = e.stop
	}
	return append(out, b[at:]...)
}

// remoteAddr says whether an image address loads from elsewhere: anything
// but a data: URL or a plain path (a scheme, //host, \\host, /\\host).
func remoteAddr(d string) bool {
	d = strings.TrimSpace(d)
	return !isData([]byte(d)) && (strings.Contains(d, ":") || strings.HasPrefix(d, "//") || strings.HasPrefix(d, `\`) || strings.HasPrefix(d, `/\`))
}

func isData(dest []byte) bool {
	return bytes.HasPrefix(bytes.ToLower(bytes.TrimSpace(dest)), []byte("data:"))
}

// loadingTags load or run something whatever their attributes.
var loadingTags = map[string]bool{"script": true, "style": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true, "link": true, "meta": true, "base": true, "applet": true, "portal": true}

// loadingAttrs make a tag load something.
var loadingAttrs = map[string]bool{"src": true, "srcset": true, "poster": true, "background": true, "data": true, "style": true, "href": true, "xlink:href": true, "action": true, "formaction": true, "lowsrc": true, "dynsrc": true, "codebase": true, "manifest": true, "imagesrcset": true}

// linkHTML rewrites raw HTML so that it loads nothing: an <img> becomes a
// link to its address, any other tag that loads is escaped to text.
func linkHTML(raw []byte) (out []byte, changed bool) {
	z := xhtml.NewTokenizer(bytes.NewReader(raw))
	used := 0
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			break
		}
		tok := append([]byte(nil), z.Raw()...)
		used += len(tok)
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken && tt != xhtml.EndTagToken {
			out = append(out, tok...)
			continue
		}
		t := z.Token()
		if !loads(t) {
			out = append(out, tok...)
			continue
		}
		changed = true
		if src, alt := imgSource(t); t.Data == "img" && src != "" && !isData([]byte(src)) {
			out = append(out, `<a href="`+html.EscapeString(src)+`">image: `+html.EscapeString(alt)+`</a>`...)
		} else {
			out = append(out, html.EscapeString(string(tok))...)
		}
	}
	if used < len(raw) { // a tag cut off at the end
		out = append(out, html.EscapeString(string(raw[used:]))...)
		changed = true
	}
	return out, changed
}

// loads says whether the tag t loads or runs something when shown.
func loads(t xhtml.Token) bool {
	name := strings.ToLower(t.Data)
	if loadingTags[name] {
		return true
	}
	for _, a := range t.Attr {
		k := strings.ToLower(a.Key)
		if a.Namespace != "" {
			k = strings.ToLower(a.Namespace) + ":" + k
		}
		switch {
		case k == "href" && name == "a":
		case k == "src" && name == "img" && isData([]byte(a.Val)) && !hasAttr(t, "srcset"):
		case loadingAttrs[k] || strings.HasPrefix(k, "on"):
			return true
		}
	}
	return false
}

func hasAttr(t xhtml.Token, key string) bool {
	return slices.ContainsFunc(t.Attr, func(a xhtml.Attribute) bool { return strings.EqualFold(a.Key, key) })
}

// imgSource is the address an <img> loads (src, else the first of srcset)
// and its alt text.
func imgSource(t xhtml.Token) (src, alt string) {
	for _, a := range t.Attr {
		switch strings.ToLower(a.Key) {
		case "src":
			src = strings.TrimSpace(a.Val)
		case "alt":
			alt = a.Val
		case "srcset":
			if f := strings.Fields(a.Val); src == "" && len(f) > 0 {
				src = strings.TrimSuffix(f[0], ",")
			}
		}
	}
	return src, alt
}
