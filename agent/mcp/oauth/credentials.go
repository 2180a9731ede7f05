package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"time"
)

// clientCredentials gets a token with the client_credentials grant,
// authenticated by client_secret or by private_key_jwt (RFC 7523).
func (c *Client) clientCredentials(ctx context.Context, d *Discovery, scope string) (*tokenResponse, error) {
	cfg := c.opts.Config
	if cfg == nil || cfg.ClientID == "" {
		return nil, errors.New(`the client_credentials grant needs "client_id" in the server's "oauth" object`)
	}
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {d.Resource}}
	if scope != "" {
		form.Set("scope", scope)
	}
	rec := &record{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret}
	switch {
	case cfg.PrivateKeyFile != "" || cfg.PrivateKeyPEM != "":
		pemBytes := []byte(cfg.PrivateKeyPEM)
		if cfg.PrivateKeyFile != "" {
			b, err := os.ReadFile(cfg.PrivateKeyFile)
			if err != nil {
				return nil, fmt.Errorf("read private_key_file: %w", err)
			}
			pemBytes = b
		}
		jwt, err := SignAssertion(pemBytes, cfg.SigningAlgorithm, cfg.ClientID, d.Server.Issuer, c.opts.Now())
		if err != nil {
			return nil, err
		}
		rec.AuthMethod = "private_key_jwt"
		form.Set("client_id", cfg.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", jwt)
	case cfg.ClientSecret != "":
		rec.AuthMethod = authMethod(d.Server, true, "")
	default:
		return nil, errors.New(`the client_credentials grant needs "client_secret" or "private_key_file" in the server's "oauth" object`)
	}
	return c.tokenRequest(ctx, d, rec, form)
}

// enterprise gets a token by enterprise-managed authorization (SEP-990):
// the user's ID token is exchanged at the identity provider for an ID-JAG
// (RFC 8693), and that at the authorization server for an access token
// (RFC 7523 jwt-bearer grant).
func (c *Client) enterprise(ctx context.Context, d *Discovery, scope string) (*tokenResponse, error) {
	cfg := c.opts.Config
	if cfg == nil || cfg.IDPTokenEndpoint == "" || cfg.IDToken == "" || cfg.ClientID == "" {
		return nil, errors.New(`the enterprise grant needs "idp_token_endpoint", "id_token" and "client_id" in the server's "oauth" object`)
	}
	if err := checkEndpointURL(cfg.IDPTokenEndpoint); err != nil {
		return nil, fmt.Errorf("idp_token_endpoint %q: %w", cfg.IDPTokenEndpoint, err)
	}
	form := url.Values{
		"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"},
		"subject_token":        {cfg.IDToken},
		"subject_token_type":   {"urn:ietf:params:oauth:token-type:id_token"},
		"audience":             {d.Server.Issuer},
		"resource":             {d.Resource},
	}
	if scope != "" {
		form.Set("scope", scope)
	}
	if cfg.IDPClientID != "" {
		form.Set("client_id", cfg.IDPClientID)
	}
	if cfg.IDPClientSecret != "" {
		form.Set("client_secret", cfg.IDPClientSecret)
	}
	jag, err := c.postToken(ctx, cfg.IDPTokenEndpoint, form, "", "", false)
	if err != nil {
		return nil, fmt.Errorf("token exchange at the identity provider: %w", err)
	}
	rec := &record{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthMethod: authMethod(d.Server, cfg.ClientSecret != "", "")}
	return c.tokenRequest(ctx, d, rec, url.Values{
		"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"},
		"assertion":  {jag.AccessToken},
	})
}

// SignAssertion makes a client assertion JWT (iss and sub: the client, aud:
// the issuer) signed with the PEM key by alg, ES256 or RS256.
func SignAssertion(pemKey []byte, alg, clientID, audience string, now time.Time) (string, error) {
	block, _ := pem.Decode(pemKey)
	if block == nil {
		return "", errors.New("the private key is not PEM")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return "", fmt.Errorf("read the private key: %w", err)
	}
	if alg == "" {
		alg = "ES256"
		if _, ok := key.(*rsa.PrivateKey); ok {
			alg = "RS256"
		}
	}
	header, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{
		"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": randomString(16),
	})
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	switch alg {
	case "ES256":
		k, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return "", errors.New("signing_algorithm ES256 needs an EC P-256 key")
		}
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			return "", err
		}
		sig = append(pad32(r), pad32(s)...)
	case "RS256":
		k, ok := key.(*rsa.PrivateKey)
		if !ok {
			return "", errors.New("signing_algorithm RS256 needs an RSA key")
		}
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:]); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("signing_algorithm %q is not supported (ES256 or RS256)", alg)
	}
	return input + "." + enc.EncodeToString(sig), nil
}

func pad32(n *big.Int) []byte {
	b := make([]byte, 32)
	return n.FillBytes(b)
}
