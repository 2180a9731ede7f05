package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Names of the tools as the model, permission rules and saved sessions see them.
const (
	ReadTextFile  = "filesystem_read_text_file"
	ReadMediaFile = "filesystem_read_media_file"
	WriteTextFile = "filesystem_write_text_file"
	EditTextFile  = "filesystem_edit_text_file"
)

// Tool declares one tool to the model: its name, what it does, and its
// parameters as a JSON schema object.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// Tools returns the declarations of the four file tools. Each call returns
// fresh values the caller may modify.
func Tools() []Tool {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	obj := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required}
	}
	const pathDesc = "File path, relative to the workspace (absolute paths and paths outside the workspace need the user's approval)."
	return []Tool{
		{
			Name: ReadTextFile,
			Description: fmt.Sprintf("Read a UTF-8 text file and return its content. Without offset and limit it returns the first %d lines; "+
				"use offset (first line, counted from 1) and limit (number of lines) to page through longer files. "+
				"Lines longer than %d bytes are cut short. Binary files are refused; read images with %s.",
				DefaultLineLimit, MaxLineBytes, ReadMediaFile),
			Parameters: obj(map[string]any{
				"path":   str(pathDesc),
				"offset": map[string]any{"type": "integer", "minimum": 1, "description": "Line number to start at, counting from 1. Default 1."},
				"limit":  map[string]any{"type": "integer", "minimum": 1, "description": fmt.Sprintf("Maximum number of lines to return. Default %d.", DefaultLineLimit)},
			}, "path"),
		},
		{
			Name: ReadMediaFile,
			Description: fmt.Sprintf("Look at a media file: an image (PNG, JPEG, GIF or WEBP) is shown to you directly, scaled down first when "+
				"larger than %d pixels on a side; a PDF document, audio or video file is passed to you as it is when you can read that kind "+
				"(up to %d MiB; otherwise the result says so).", MaxImageSide, MaxInlineMediaBytes>>20),
			Parameters: obj(map[string]any{"path": str(pathDesc)}, "path"),
		},
		{
			Name: WriteTextFile,
			Description: "Create a text file or replace the whole content of an existing one. Missing parent folders are created. " +
				"To change part of a file, prefer " + EditTextFile + ".",
			Parameters: obj(map[string]any{
				"path":    str(pathDesc),
				"content": str("The complete new content of the file."),
			}, "path", "content"),
		},
		{
			Name: EditTextFile,
			Description: "Replace one exact piece of text in a file. old_text must occur exactly once in the file: copy it verbatim, " +
				"including indentation, and add surrounding lines if it is not unique. The file's line endings and byte order mark are kept.",
			Parameters: obj(map[string]any{
				"path":     str(pathDesc),
				"old_text": str("The exact text to replace; it must occur exactly once in the file."),
				"new_text": str("The text to put in its place."),
			}, "path", "old_text", "new_text"),
		},
	}
}

// Args holds the decoded arguments of one file tool call: one of
// ReadTextArgs, ReadMediaArgs, WriteArgs or EditArgs.
type Args interface {
	// ToolName is the name of the tool the arguments belong to.
	ToolName() string
	// FilePath is the path as the model sent it; resolve it with
	// Workspace.Resolve.
	FilePath() string
}

// ReadTextArgs are the arguments of filesystem_read_text_file. Offset is the
// first line to return, counting from 1; Limit the number of lines. Zero
// means the default for either.
type ReadTextArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// ReadMediaArgs are the arguments of filesystem_read_media_file.
type ReadMediaArgs struct {
	Path string `json:"path"`
}

// WriteArgs are the arguments of filesystem_write_text_file.
type WriteArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// EditArgs are the arguments of filesystem_edit_text_file.
type EditArgs struct {
	Path    string `json:"path"`
	OldText string `json:"old_text"`
	NewText string `json:"new_text"`
}

func (ReadTextArgs) ToolName() string    { return ReadTextFile }
func (ReadMediaArgs) ToolName() string   { return ReadMediaFile }
func (WriteArgs) ToolName() string       { return WriteTextFile }
func (EditArgs) ToolName() string        { return EditTextFile }
func (a ReadTextArgs) FilePath() string  { return a.Path }
func (a ReadMediaArgs) FilePath() string { return a.Path }
func (a WriteArgs) FilePath() string     { return a.Path }
func (a EditArgs) FilePath() string      { return a.Path }

// IsTool reports whether name is one of the file tools.
func IsTool(name string) bool {
	switch name {
	case ReadTextFile, ReadMediaFile, WriteTextFile, EditTextFile:
		return true
	}
	return false
}

// ParseArgs decodes the JSON arguments the model sent for the tool name.
// Errors say what is wrong in words the model can act on.
func ParseArgs(name string, raw []byte) (Args, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("%s: arguments must be a JSON object: %w", name, err)
	}
	var spec []param
	var decoded func() Args // reads the variable spec decodes into
	switch name {
	case ReadTextFile:
		var a ReadTextArgs
		spec = []param{{"path", true, &a.Path}, {"offset", false, &a.Offset}, {"limit", false, &a.Limit}}
		decoded = func() Args { return a }
	case ReadMediaFile:
		var a ReadMediaArgs
		spec = []param{{"path", true, &a.Path}}
		decoded = func() Args { return a }
	case WriteTextFile:
		var a WriteArgs
		spec = []param{{"path", true, &a.Path}, {"content", true, &a.Content}}
		decoded = func() Args { return a }
	case EditTextFile:
		var a EditArgs
		spec = []param{{"path", true, &a.Path}, {"old_text", true, &a.OldText}, {"new_text", true, &a.NewText}}
		decoded = func() Args { return a }
	default:
		return nil, fmt.Errorf("unknown file tool %q", name)
	}
	if err := decodeParams(name, fields, spec); err != nil {
		return nil, err
	}
	args := decoded()
	if a, ok := args.(ReadTextArgs); ok && (a.Offset < 0 || a.Limit < 0) {
		return nil, fmt.Errorf("%s: offset and limit must be positive (offset counts lines from 1), got offset=%d limit=%d", name, a.Offset, a.Limit)
	}
	return args, nil
}

// param describes one parameter for decodeParams; dst is *string or *int.
type param struct {
	name     string
	required bool
	dst      any
}

func decodeParams(tool string, fields map[string]json.RawMessage, spec []param) error {
	var names []string
	known := map[string]bool{}
	for _, p := range spec {
		names = append(names, p.name)
		known[p.name] = true
	}
	var unknown []string
	for k := range fields {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%s: unknown parameter(s) %s; the parameters are %s", tool, strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	for _, p := range spec {
		v, ok := fields[p.name]
		if !ok || string(v) == "null" {
			if p.required {
				return fmt.Errorf("%s: missing required parameter %q", tool, p.name)
			}
			continue
		}
		switch dst := p.dst.(type) {
		case *string:
			if err := json.Unmarshal(v, dst); err != nil {
				return fmt.Errorf("%s: parameter %q must be a string", tool, p.name)
			}
		case *int:
			var f float64
			if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
				return fmt.Errorf("%s: parameter %q must be a whole number, got %s", tool, p.name, v)
			}
			*dst = int(f)
		}
	}
	return nil
}

// Result is what a file tool returns to the model: a text message, plus the
// image (or PDF, audio, video) for filesystem_read_media_file.
type Result struct {
	Text  string
	Image *Image
}

// Run executes an already decoded call. approved says whether the user (or a
// permission rule) approved this call; only approved calls may touch paths
// outside the workspace. The error's text is written for the model: return
// it to the model as the tool's (error) result.
func (w *Workspace) Run(ctx context.Context, args Args, approved bool) (Result, error) {
	if args == nil {
		return Result{}, errors.New("no file tool arguments given")
	}
	p, err := w.resolve(ctx, args.FilePath(), approved)
	if err != nil {
		return Result{}, err
	}
	return w.run(ctx, args, p)
}

// RunApproved executes a call that was approved for the path approved (as
// Resolve returned it before asking). The path must still resolve to the
// same file: a symbolic link changed in between is refused with nothing
// done, and the file is then opened without following any link, so one
// swapped in later still cannot redirect it.
func (w *Workspace) RunApproved(ctx context.Context, args Args, approved Path) (Result, error) {
	if args == nil {
		return Result{}, errors.New("no file tool arguments given")
	}
	now, err := w.Resolve(ctx, args.FilePath())
	if err != nil {
		return Result{}, err
	}
	if now.Abs != approved.Abs {
		return Result{}, fmt.Errorf("%s changed after it was approved: it was %s and now leads to %s (a symbolic link was changed); nothing was done",
			args.FilePath(), approved.Abs, now.Abs)
	}
	return w.run(ctx, args, approved)
}

// run executes a call on its resolved path p.
func (w *Workspace) run(ctx context.Context, args Args, p Path) (Result, error) {
	switch a := args.(type) {
	case ReadTextArgs:
		text, err := w.readText(ctx, a, p)
		return Result{Text: text}, err
	case ReadMediaArgs:
		img, text, err := w.readMedia(ctx, p)
		if err != nil {
			return Result{}, err
		}
		return Result{Text: text, Image: &img}, nil
	case WriteArgs:
		text, err := w.write(ctx, a, p)
		return Result{Text: text}, err
	case EditArgs:
		text, err := w.edit(ctx, a, p)
		return Result{Text: text}, err
	}
	return Result{}, fmt.Errorf("unsupported file tool arguments %T", args)
}
