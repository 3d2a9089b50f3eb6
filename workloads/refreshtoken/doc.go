// Package refreshtoken is the built-in workload that models Keycloak's
// persistent user sessions: logins insert a user and a client session, token
// refreshes lock and update both (the expiration-index cost of PR #51904),
// logouts lock and delete them. Variant "baseline" is Keycloak 26.7's schema,
// "coarse" 26.8's. README.md in this directory names the Keycloak class or
// changelog each statement and index comes from.
package refreshtoken
