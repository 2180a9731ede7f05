package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/BurntSushi/toml"
)

// TOMLFileName is the permissions file of the Python freeact 0.11: the same
// rules as permissions.json, written as TOML. It is read, never written.
const TOMLFileName = "permissions.toml"

// ParseTOMLRules parses the content of a permissions.toml as strictly as
// ParseRules: ask = [rule...], allow = [rule...], each rule an inline
// table with the fields of a permissions.json rule.
func ParseTOMLRules(data []byte, file string) (Rules, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return Rules{}, fmt.Errorf("%s: line %d: %s (fix the TOML syntax)", file, perr.Position.Line, perr.Message)
		}
		return Rules{}, fmt.Errorf("%s: %w", file, err)
	}
	if _, ok := doc["deny"]; ok {
		// freeact 0.11 had no deny rules: they belong in permissions.json.
		return Rules{}, fmt.Errorf(`%s: unknown field "deny": permissions.toml takes allow and ask; write deny rules in permissions.json`, file)
	}
	asJSON, err := json.Marshal(doc)
	if err != nil {
		return Rules{}, fmt.Errorf("%s: %w", file, err)
	}
	return ParseRules(asJSON, file)
}

func readTOMLRules(file string) (Rules, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Rules{}, fmt.Errorf("read permissions: %w", err)
	}
	return ParseTOMLRules(data, file)
}
