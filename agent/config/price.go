package config

import "github.com/freeact/desktop/agent/model"

// PriceOf prices a call of modelName counted by u by the catalog and the
// models of agent.json; nil when the model's price is unknown.
func (c *Config) PriceOf(modelName string, u model.Usage) *float64 {
	info, ok := model.Lookup(modelName, c.Options.Models)
	if !ok {
		return nil
	}
	cost, ok := info.Cost(u)
	if !ok {
		return nil
	}
	return &cost
}
