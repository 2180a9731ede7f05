package oauth

import (
	"strings"
)

// Challenge is one auth-scheme challenge of a WWW-Authenticate header
// (RFC 9110 §11.6.1): the scheme and its parameters, names lower-cased.
type Challenge struct {
	Scheme string
	Params map[string]string
}

// BearerChallenge returns the parameters of the first Bearer challenge in
// the WWW-Authenticate header values, or nil when there is none.
func BearerChallenge(values []string) map[string]string {
	for _, v := range values {
		for _, c := range ParseWWWAuthenticate(v) {
			if strings.EqualFold(c.Scheme, "bearer") {
				return c.Params
			}
		}
	}
	return nil
}

// ParseWWWAuthenticate reads the challenges of one WWW-Authenticate header
// value: `Bearer realm="x", scope="a b", Basic realm=y`. Malformed parts
// are skipped; it never fails, as a header is the server's to get wrong.
func ParseWWWAuthenticate(h string) []Challenge {
	var out []Challenge
	p := parser{s: h}
	for {
		p.skip(" \t,")
		if p.done() {
			return out
		}
		scheme := p.token()
		if scheme == "" {
			p.i++ // not a token character: step over it
			continue
		}
		c := Challenge{Scheme: scheme, Params: map[string]string{}}
		for {
			p.skip(" \t")
			save := p.i
			name := p.token()
			p.skip(" \t")
			if name == "" || p.done() || p.s[p.i] != '=' {
				// The next challenge's scheme, a token68 or the end.
				p.i = save
				if name != "" && !p.done() && p.s[p.i] != ',' && len(c.Params) == 0 {
					p.token68()
				}
				break
			}
			p.i++ // '='
			p.skip(" \t")
			var val string
			if !p.done() && p.s[p.i] == '"' {
				val = p.quoted()
			} else {
				val = p.token()
			}
			c.Params[strings.ToLower(name)] = val
			p.skip(" \t")
			if p.done() || p.s[p.i] != ',' {
				break
			}
			p.i++ // ','
		}
		out = append(out, c)
	}
}

type parser struct {
	s string
	i int
}

func (p *parser) done() bool { return p.i >= len(p.s) }

func (p *parser) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func isTokenChar(b byte) bool {
	return b > ' ' && b < 0x7f && !strings.ContainsRune("\"(),/:;<=>?@[\\]{}", rune(b))
}

func (p *parser) token() string {
	start := p.i
	for !p.done() && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *parser) token68() {
	for !p.done() && p.s[p.i] != ',' {
		p.i++
	}
}

// quoted reads a quoted-string at p.i (which holds '"'), undoing escapes.
func (p *parser) quoted() string {
	p.i++
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
