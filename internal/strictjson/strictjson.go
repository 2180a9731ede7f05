// Package strictjson owns decoding the JSON files people write by hand
// (agent.json, permissions.json, the app's settings): one value, no unknown
// keys, nothing after it. A leading UTF-8 byte order mark, which some
// Windows editors write, is accepted.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// UnknownKeyError is the error for a key the target type does not have.
type UnknownKeyError struct{ Key string }

func (e *UnknownKeyError) Error() string { return fmt.Sprintf("unknown key %q", e.Key) }

// ErrTrailingData is the error for content after the JSON value.
var ErrTrailingData = errors.New("unexpected content after the JSON value")

// bom is the UTF-8 byte order mark.
var bom = []byte("\xef\xbb\xbf")

// Unmarshal decodes the one JSON value in data into v. A key v has no field
// for is an *UnknownKeyError, content after the value is ErrTrailingData;
// other errors are encoding/json's.
func Unmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, bom)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		// encoding/json has no error type for this one; its text is stable
		// (json: unknown field %q).
		if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if k, qerr := strconv.Unquote(key); qerr == nil {
				return &UnknownKeyError{Key: k}
			}
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrTrailingData
	}
	return nil
}
