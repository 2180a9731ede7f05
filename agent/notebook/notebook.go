// Package notebook owns Jupyter notebooks (nbformat 4) and the other
// documents a conversation is exported as: it reads .ipynb files, writes
// valid nbformat 4.5 ones, and renders a transcript (prompts, answers,
// thoughts, code cells with their outputs, other tool calls) as a notebook,
// as Markdown or as a self-contained HTML page. It knows nothing about
// agents: package agent turns a conversation into a Transcript.
package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Cell types.
const (
	Markdown = "markdown"
	Code     = "code"
	Raw      = "raw"
)

// Notebook is an nbformat 4 document.
type Notebook struct {
	Cells         []Cell         `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

// Cell is a notebook cell. Outputs and ExecutionCount belong to code
// cells only; they are written for code cells (an execution count that was
// never set as null) and never for others, as the schema demands.
type Cell struct {
	ID             string         `json:"id,omitempty"`
	CellType       string         `json:"cell_type"`
	Metadata       map[string]any `json:"metadata"`
	Source         string         `json:"-"`
	Outputs        []Output       `json:"-"`
	ExecutionCount *int           `json:"-"`
	// Attachments of a markdown cell, kept as they were read.
	Attachments json.RawMessage `json:"attachments,omitempty"`
}

// Output is one output of a code cell: a stream, display data, an
// execute result or an error.
type Output struct {
	OutputType string `json:"output_type"`
	// Name is "stdout" or "stderr" for a stream.
	Name string `json:"name,omitempty"`
	// Text of a stream.
	Text string `json:"-"`
	// Data of display data and execute results, by MIME type; text types
	// are strings, images base64.
	Data           map[string]string `json:"-"`
	Metadata       map[string]any    `json:"-"`
	ExecutionCount *int              `json:"-"`
	// Ename, Evalue and Traceback of an error.
	Ename     string   `json:"ename,omitempty"`
	Evalue    string   `json:"evalue,omitempty"`
	Traceback []string `json:"traceback,omitempty"`
}

// Output types.
const (
	Stream        = "stream"
	DisplayData   = "display_data"
	ExecuteResult = "execute_result"
	Error         = "error"
)

// New returns an empty nbformat 4.5 notebook for Python.
func New() *Notebook {
	return &Notebook{
		Metadata: map[string]any{
			"kernelspec":    map[string]any{"name": "python3", "display_name": "Python 3", "language": "python"},
			"language_info": map[string]any{"name": "python"},
		},
		NBFormat: 4, NBFormatMinor: 5,
	}
}

// lines splits text the way notebooks store multi-line strings: a list of
// lines, each but the last ending with its newline.
func lines(s string) []string {
	out := []string{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// multiline reads a multi-line string: a string or a list of strings.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var parts []string
	if err := json.Unmarshal(b, &parts); err != nil {
		return errors.New("want a string or a list of strings")
	}
	*m = multiline(strings.Join(parts, ""))
	return nil
}

// MarshalJSON writes the cell as the schema wants its type.
func (c Cell) MarshalJSON() ([]byte, error) {
	type plain Cell
	base, err := marshal(plain(c))
	if err != nil {
		return nil, err
	}
	extra := map[string]any{"source": lines(c.Source)}
	if c.CellType == Code {
		outs := c.Outputs
		if outs == nil {
			outs = []Output{}
		}
		extra["outputs"] = outs
		extra["execution_count"] = c.ExecutionCount // null when nil
	}
	return mergeObjects(base, extra)
}

// UnmarshalJSON reads a cell of nbformat 4.
func (c *Cell) UnmarshalJSON(b []byte) error {
	type plain Cell
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var rest struct {
		Source         multiline `json:"source"`
		Outputs        []Output  `json:"outputs"`
		ExecutionCount *int      `json:"execution_count"`
	}
	if err := json.Unmarshal(b, &rest); err != nil {
		return err
	}
	*c = Cell(p)
	c.Source, c.Outputs, c.ExecutionCount = string(rest.Source), rest.Outputs, rest.ExecutionCount
	return nil
}

// MarshalJSON writes the output as the schema wants its type.
func (o Output) MarshalJSON() ([]byte, error) {
	type plain Output
	base, err := marshal(plain(o))
	if err != nil {
		return nil, err
	}
	extra := map[string]any{}
	switch o.OutputType {
	case Stream:
		extra["text"] = lines(o.Text)
	case DisplayData, ExecuteResult:
		data := map[string]any{}
		for mime, v := range o.Data {
			if strings.HasPrefix(mime, "text/") || mime == "image/svg+xml" {
				data[mime] = lines(v)
			} else {
				data[mime] = v
			}
		}
		extra["data"] = data
		md := o.Metadata
		if md == nil {
			md = map[string]any{}
		}
		extra["metadata"] = md
		if o.OutputType == ExecuteResult {
			extra["execution_count"] = o.ExecutionCount
		}
	case Error:
		if o.Traceback == nil {
			extra["traceback"] = []string{}
		}
		extra["ename"], extra["evalue"] = o.Ename, o.Evalue
	}
	return mergeObjects(base, extra)
}

// UnmarshalJSON reads an output of nbformat 4.
func (o *Output) UnmarshalJSON(b []byte) error {
	type plain Output
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var rest struct {
		Text           multiline                  `json:"text"`
		Data           map[string]json.RawMessage `json:"data"`
		Metadata       map[string]any             `json:"metadata"`
		ExecutionCount *int                       `json:"execution_count"`
	}
	if err := json.Unmarshal(b, &rest); err != nil {
		return err
	}
	*o = Output(p)
	o.Text, o.Metadata, o.ExecutionCount = string(rest.Text), rest.Metadata, rest.ExecutionCount
	if len(rest.Data) > 0 {
		o.Data = map[string]string{}
		for mime, raw := range rest.Data {
			var m multiline
			if json.Unmarshal(raw, &m) == nil {
				o.Data[mime] = string(m)
			} else {
				o.Data[mime] = string(raw) // a JSON value (application/json)
			}
		}
	}
	return nil
}

// mergeObjects adds the keys of extra to the JSON object base.
func mergeObjects(base []byte, extra map[string]any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(base, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		b, err := marshal(v)
		if err != nil {
			return nil, err
		}
		m[k] = b
	}
	return marshal(m)
}

// marshal is json.Marshal without escaping <, > and &, as Jupyter writes
// notebooks.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Marshal writes the notebook as Jupyter does: indented JSON with a final
// newline, keys sorted.
func (nb *Notebook) Marshal() ([]byte, error) {
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	for i := range nb.Cells {
		if nb.Cells[i].Metadata == nil {
			nb.Cells[i].Metadata = map[string]any{}
		}
	}
	raw, err := marshal(nb)
	if err != nil {
		return nil, fmt.Errorf("encode notebook: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", " "); err != nil {
		return nil, fmt.Errorf("encode notebook: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// maxNotebookBytes bounds a notebook read from disk.
const maxNotebookBytes = 256 << 20

// Read reads an nbformat 4 notebook. A file of another major version, or
// one that is not a notebook, is an error saying so.
func Read(r io.Reader) (*Notebook, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxNotebookBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read notebook: %w", err)
	}
	if len(data) > maxNotebookBytes {
		return nil, fmt.Errorf("read notebook: larger than %d MB", maxNotebookBytes>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var head struct {
		NBFormat *int `json:"nbformat"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("read notebook: not JSON: %w", err)
	}
	switch {
	case head.NBFormat == nil:
		return nil, errors.New("read notebook: no nbformat key: this is not a Jupyter notebook")
	case *head.NBFormat != 4:
		return nil, fmt.Errorf("read notebook: nbformat %d is not supported: open it in Jupyter and save it again (nbformat 4)", *head.NBFormat)
	}
	var nb Notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("read notebook: %w", err)
	}
	for i, c := range nb.Cells {
		switch c.CellType {
		case Markdown, Code, Raw:
		default:
			return nil, fmt.Errorf("read notebook: cell %d has the unknown type %q", i+1, c.CellType)
		}
	}
	return &nb, nil
}
