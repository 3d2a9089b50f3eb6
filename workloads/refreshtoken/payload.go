package refreshtoken

import "fmt"

// userSessionData is a session JSON of the size Keycloak stores (a few
// hundred bytes): the size matters, it decides how many rows fit on a page
// and so whether an update can stay on its page (HOT).
func userSessionData(id, userID string, createdOn int64) string {
	return fmt.Sprintf(`{"ipAddress":"10.%d.%d.%d","authMethod":"openid-connect","rememberMe":false,"started":0,"notes":{"KC_DEVICE_NOTE":"eyJpcEFkZHJlc3MiOiIxMC4wLjAuMSIsIm9zIjoiTGludXgiLCJicm93c2VyIjoiQ2hyb21lLzEyMC4wIiwiZGV2aWNlIjoiT3RoZXIiLCJtb2JpbGUiOmZhbHNlfQ==","AUTH_TIME":"%d","authenticators-completed":"{\"3f6d5c1e-6a2b-4c7e-9d1a-%012d\":%d}"},"state":"LOGGED_IN"}`,
		createdOn%256, (createdOn/256)%256, len(id)+len(userID), createdOn, createdOn%1000000000000, createdOn)
}

// clientSessionData is the client session JSON (redirect URI, protocol notes).
func clientSessionData(clientID string, ts int64) string {
	return fmt.Sprintf(`{"authMethod":"openid-connect","redirectUri":"https://app.example.com/callback","notes":{"clientId":"%s","iss":"https://sso.example.com/realms/benchmark","startedAt":"%d","level-of-authentication":"-1","scope":"openid profile email","userSessionStartedAt":"%d","SSO_AUTH":"false"}}`,
		clientID, ts, ts)
}
