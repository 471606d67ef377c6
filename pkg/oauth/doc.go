// Package oauth provides the OAUTHBEARER token sources of kproduce: a
// static token, a token file re-read at every authentication (a
// Kubernetes projected service-account token rotates), the OAuth 2 client
// credentials grant against a token endpoint (OIDC providers, Confluent
// Cloud, Keycloak, Okta, Azure AD), and librdkafka's unsecured JWT for
// development. Each satisfies network.OAuthBearerTokenSource.
//
// Invariants:
//   - Token never blocks and never returns an expired token: a source
//     whose token expired answers with an error wrapping
//     network.ErrSASLPending until a new one is there.
//   - The client credentials source fetches in the background: the first
//     token when the first Client asks for it (Prepare), then each refresh
//     at 80-85% of the token's life; a failed fetch is retried with
//     exponential backoff; one token is shared by every connection and
//     every Client. The goroutine ends once every Client released it.
//   - A fetch that no retry can fix (a wrong client secret, an unknown
//     client, a bad URL: HTTP 400, 401, 403, 404) is final, unless a
//     valid token is still held.
//   - Errors name the endpoint, the HTTP status and the OAuth error and
//     error_description; they never hold a token or a secret. Claims
//     summaries name sub, aud, scope and exp only.
package oauth
