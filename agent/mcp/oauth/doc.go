// Package oauth signs freeact in to OAuth-protected MCP servers (MCP
// authorization 2025-11-25, with the 2025-03-26 fallbacks): discovery from
// a 401's WWW-Authenticate (RFC 9728 protected resource metadata, RFC 8414
// and OpenID discovery, default endpoints), the client's identity
// (pre-registered, client ID metadata document, RFC 7591 registration),
// the authorization code grant with PKCE S256 and the resource parameter
// through the browser and a loopback listener, the client_credentials
// grant (client secret or private_key_jwt), refresh, scope step-up, and
// keeping the registration and tokens in the keyring (or a 0600 file)
// with a lock across processes around refresh.
//
// It owns the tokens: they never leave it except in the Authorization
// header of requests to the server they were issued for.
package oauth
