package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// ResourceMetadata is an OAuth protected resource metadata document
// (RFC 9728), the fields used here.
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// ServerMetadata is an authorization server metadata document (RFC 8414,
// or OpenID Connect discovery), the fields used here.
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	// Defaults marks endpoints guessed from the server's origin (MCP
	// 2025-03-26 fallback), not read from a document.
	Defaults bool `json:"-"`
}

// Discovery is what discovery found for one MCP server.
type Discovery struct {
	// Resource is the RFC 8707 resource indicator: the metadata's resource,
	// else the server URL.
	Resource string
	// Resource metadata, nil for a server that has none (2025-03-26).
	PRM    *ResourceMetadata
	Server *ServerMetadata
}

// maxMetadata bounds a metadata document.
const maxMetadata = 1 << 20

// ParseResourceMetadata decodes a protected resource metadata document.
func ParseResourceMetadata(b []byte) (*ResourceMetadata, error) {
	var m ResourceMetadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("protected resource metadata is not valid JSON: %w", err)
	}
	for _, s := range m.AuthorizationServers {
		if err := checkEndpointURL(s); err != nil {
			return nil, fmt.Errorf("protected resource metadata: authorization server %q: %w", s, err)
		}
	}
	return &m, nil
}

// ParseServerMetadata decodes an authorization server metadata document
// and checks that its issuer and endpoints are https URLs (http only on
// this computer's loopback).
func ParseServerMetadata(b []byte) (*ServerMetadata, error) {
	var m ServerMetadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("authorization server metadata is not valid JSON: %w", err)
	}
	if m.AuthorizationEndpoint == "" && m.TokenEndpoint == "" {
		return nil, errors.New("authorization server metadata names neither an authorization nor a token endpoint")
	}
	for name, u := range map[string]string{"issuer": m.Issuer, "authorization_endpoint": m.AuthorizationEndpoint, "token_endpoint": m.TokenEndpoint, "registration_endpoint": m.RegistrationEndpoint} {
		if u == "" {
			continue
		}
		if err := checkEndpointURL(u); err != nil {
			return nil, fmt.Errorf("authorization server metadata: %s %q: %w", name, u, err)
		}
	}
	return &m, nil
}

// checkEndpointURL accepts an https URL, or an http one on this
// computer's loopback (127.0.0.0/8, ::1, localhost): on plain http
// elsewhere the authorization code, PKCE verifier, tokens and client
// secret would travel in clear.
func checkEndpointURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	switch {
	case (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return errors.New("not an http(s) URL")
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		return fmt.Errorf("plain http to %s, which is not this computer: codes, tokens and client secrets would travel in clear; refusing it (an authorization server must use https)", u.Host)
	}
	return nil
}

// isLoopback reports whether host names this computer's loopback.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// discover finds the authorization server of the MCP server at serverURL.
// prmURL is the resource_metadata of the server's challenge, if any.
func discover(ctx context.Context, hc *http.Client, serverURL, prmURL string) (*Discovery, error) {
	su, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", serverURL, err)
	}
	if su.Scheme == "http" && !isLoopback(su.Hostname()) {
		return nil, fmt.Errorf("the MCP server %s is on plain http on a host that is not this computer: its token would travel in clear; refusing to sign in (use its https URL)", serverURL)
	}
	origin := su.Scheme + "://" + su.Host
	var candidates []string
	if prmURL != "" {
		candidates = append(candidates, prmURL)
	}
	if p := strings.TrimSuffix(su.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	d := &Discovery{Resource: serverURL}
	for _, c := range slices.Compact(candidates) {
		body, ok, err := fetch(ctx, hc, c)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		prm, err := ParseResourceMetadata(body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		if prm.Resource != "" {
			if !resourceMatches(prm.Resource, serverURL) {
				return nil, fmt.Errorf("the protected resource metadata at %s is for %q, not for %s: refusing to sign in (a server may only ask for tokens for itself)", c, prm.Resource, serverURL)
			}
			d.Resource = prm.Resource
		}
		d.PRM = prm
		break
	}
	issuer := origin // 2025-03-26: the MCP server's origin is the authorization server
	if d.PRM != nil && len(d.PRM.AuthorizationServers) > 0 {
		issuer = d.PRM.AuthorizationServers[0]
	}
	for _, c := range serverMetadataURLs(issuer) {
		body, ok, err := fetch(ctx, hc, c)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		m, err := ParseServerMetadata(body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		// Without resource metadata (2025-03-26) the document was found at
		// the MCP server's origin rather than derived from an issuer named
		// by the server, so there is no issuer to hold it to.
		if d.PRM != nil && strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("the authorization server metadata at %s names issuer %q, not %q: refusing to use it", c, m.Issuer, issuer)
		}
		d.Server = m
		return d, nil
	}
	iu, err := url.Parse(issuer)
	if err != nil {
		return nil, fmt.Errorf("authorization server %q: %w", issuer, err)
	}
	base := iu.Scheme + "://" + iu.Host
	d.Server = &ServerMetadata{Issuer: issuer, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token", RegistrationEndpoint: base + "/register", Defaults: true}
	return d, nil
}

// serverMetadataURLs are the well-known URLs of an issuer's metadata in
// the order MCP 2025-11-25 gives: RFC 8414 and OpenID discovery with the
// path inserted, then OpenID discovery with the path appended.
func serverMetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}
}

// resourceMatches reports whether a metadata document's resource names the
// server: same scheme and host, and a path equal to the server's or a
// parent of it at a segment boundary.
func resourceMatches(resource, server string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(server)
	if err1 != nil || err2 != nil {
		return resource == server
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(r.Host, s.Host) || r.RawQuery != s.RawQuery {
		return false
	}
	rp, sp := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(s.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

// fetch GETs a metadata document: ok is false for a 4xx answer (no such
// document), an error for anything else that is not 200.
func fetch(ctx context.Context, hc *http.Client, u string) ([]byte, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("metadata URL %q: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("fetch metadata: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", u, err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return body, true, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return nil, false, nil
	default:
		return nil, false, fmt.Errorf("%s answered %s", u, resp.Status)
	}
}
