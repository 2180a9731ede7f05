package mcp

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"time"
	"unicode/utf8"
)

// CheckAnswer checks the values of an accepted form (as JSON decodes
// them: strings, float64, bools, lists of strings) against its fields and
// returns them typed for the server (integers as int64). Each problem
// names its field and says what is wanted; fields missing get their
// defaults later (WithDefaults), unless required without one.
func CheckAnswer(fields []Field, values map[string]any) (map[string]any, error) {
	out := map[string]any{}
	var errs []error
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Name] = true
		v, ok := values[f.Name]
		if !ok || v == nil {
			if f.Required && f.Default == nil {
				errs = append(errs, fmt.Errorf("%s: %s is required", f.Name, label(f)))
			}
			continue
		}
		typed, err := checkValue(f, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Name, err))
			continue
		}
		out[f.Name] = typed
	}
	for name := range values {
		if !known[name] {
			errs = append(errs, fmt.Errorf("%s: the form has no such field", name))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func label(f Field) string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

func checkValue(f Field, v any) (any, error) {
	values := func() []string {
		out := make([]string, len(f.Options))
		for i, o := range f.Options {
			out[i] = o.Value
		}
		return out
	}
	if f.Multi {
		list, ok := v.([]any)
		if !ok {
			return nil, errors.New("choose from the list")
		}
		picked := make([]any, 0, len(list))
		for _, x := range list {
			s, ok := x.(string)
			if !ok || !slices.Contains(values(), s) {
				return nil, fmt.Errorf("%v is not one of the choices", x)
			}
			picked = append(picked, s)
		}
		if f.MinItems != nil && len(picked) < *f.MinItems {
			return nil, fmt.Errorf("choose at least %d", *f.MinItems)
		}
		if f.MaxItems != nil && len(picked) > *f.MaxItems {
			return nil, fmt.Errorf("choose at most %d", *f.MaxItems)
		}
		return picked, nil
	}
	switch f.Type {
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return nil, errors.New("want yes or no")
		}
		return b, nil
	case "number", "integer":
		x, ok := v.(float64)
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("want a number")
		}
		if f.Type == "integer" && x != math.Trunc(x) {
			return nil, errors.New("want a whole number")
		}
		if f.Minimum != nil && x < *f.Minimum {
			return nil, fmt.Errorf("want at least %v", *f.Minimum)
		}
		if f.Maximum != nil && x > *f.Maximum {
			return nil, fmt.Errorf("want at most %v", *f.Maximum)
		}
		if f.Type == "integer" {
			return int64(x), nil
		}
		return x, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, errors.New("want text")
	}
	if len(f.Options) > 0 {
		if !slices.Contains(values(), s) {
			return nil, fmt.Errorf("%q is not one of the choices", s)
		}
		return s, nil
	}
	n := utf8.RuneCountInString(s)
	if f.MinLength != nil && n < *f.MinLength {
		return nil, fmt.Errorf("want at least %d characters", *f.MinLength)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return nil, fmt.Errorf("want at most %d characters", *f.MaxLength)
	}
	if err := checkFormat(f.Format, s); err != nil {
		return nil, err
	}
	return s, nil
}

// checkFormat checks the string formats MCP forms may ask for.
func checkFormat(format, s string) error {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return errors.New("want an email address such as name@example.org")
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return errors.New("want an address with a scheme, such as https://example.org")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return errors.New("want a date such as 2026-01-31")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return errors.New("want a date and time such as 2026-01-31T09:30:00Z")
		}
	}
	return nil
}
