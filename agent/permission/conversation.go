package permission

import (
	"fmt"
	"slices"
	"sync"
)

// Conversation is one conversation's view of the rules: the workspace's saved
// rules (shared through its Manager) and the grants made in this
// conversation with a Session answer. Grants live in memory, apply to
// this conversation only and end with it; they can be listed and revoked
// one by one. It is safe for concurrent use (an agent and its subagents
// share one).
type Conversation struct {
	m *Manager

	mu     sync.RWMutex
	grants Rules
}

// NewConversation returns a Conversation without grants over m's saved rules.
func (m *Manager) NewConversation() *Conversation { return &Conversation{m: m} }

// Manager returns the manager of the saved rules.
func (s *Conversation) Manager() *Manager { return s.m }

// Evaluate matches c against this conversation's grants and the saved
// rules (see Manager.evaluate for the order) and says which rule decided.
func (s *Conversation) Evaluate(c Call) Verdict {
	s.mu.RLock()
	grants := s.grants
	s.mu.RUnlock()
	s.m.mu.RLock()
	defer s.m.mu.RUnlock()
	return s.m.evaluate(grants, c)
}

// Check is Evaluate's decision.
func (s *Conversation) Check(c Call) Decision { return s.Evaluate(c).Decision }

// Suggest is Manager.Suggest.
func (s *Conversation) Suggest(c Call) string { return s.m.Suggest(c) }

// Add adds rule to the allow tier (ask=false) or the ask tier of scope:
// a grant of this session, or a saved rule (Manager.Add). A rule that
// exists already changes nothing.
func (s *Conversation) Add(scope Scope, ask bool, rule Rule) error {
	if scope == Always {
		return s.m.Add(ask, rule)
	}
	if err := rule.validate(); err != nil {
		return fmt.Errorf("add permission rule: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Copy on write: Check reads the tiers without the lock.
	g := s.grants.clone()
	tier := TierAllow
	if ask {
		tier = TierAsk
	}
	if err := addTo(&g, tier, rule); err != nil {
		return err
	}
	s.grants = g
	return nil
}

// Grants returns a copy of this session's grants.
func (s *Conversation) Grants() Rules {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.grants.clone()
}

// Revoke removes the grant rule (from either tier); later calls it
// allowed are asked again. It reports whether the session had it.
func (s *Conversation) Revoke(rule Rule) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grants.clone()
	n := len(g.Allow) + len(g.Ask)
	g.Allow = slices.DeleteFunc(g.Allow, func(r Rule) bool { return r == rule })
	g.Ask = slices.DeleteFunc(g.Ask, func(r Rule) bool { return r == rule })
	s.grants = g
	return len(g.Allow)+len(g.Ask) < n
}
