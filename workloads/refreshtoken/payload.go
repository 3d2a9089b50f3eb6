package refreshtoken

import "fmt"

// userSessionData is a session JSON of the size Keycloak stores (a few
// hundred bytes): the size matters, it decides how many rows fit on a page
// and so whether an update can stay on its page (HOT).
func userSessionData(id, userID string, createdOn int64) string {
	return fmt.Sprintf(`{"brokerSessionId":null,"brokerUserId":null,"loginUsername":"%s","ipAddress":"10.%d.%d.%d","authMethod":"openid-connect","rememberMe":false,"started":%d,"notes":{"KC_DEVICE_NOTE":"eyJpcEFkZHJlc3MiOiIxMC4wLjAuMSIsIm9zIjoiTGludXgiLCJvc1ZlcnNpb24iOiJVbmtub3duIiwiYnJvd3NlciI6IkNocm9tZS8xMjAuMC4wIiwiZGV2aWNlIjoiT3RoZXIiLCJtb2JpbGUiOmZhbHNlfQ==","AUTH_TIME":"%d","authenticators-completed":"{\"3f6d5c1e-6a2b-4c7e-9d1a-%012d\":%d}","userSessionId":"%s"},"state":"LOGGED_IN"}`,
		userID, createdOn%256, (createdOn/256)%256, len(id), createdOn, createdOn, createdOn%1000000000000, createdOn, id)
}

// clientSessionData is the client session JSON (redirect URI, protocol notes).
func clientSessionData(clientID string, ts int64) string {
	return fmt.Sprintf(`{"authMethod":"openid-connect","redirectUri":"https://app.example.com/%s/callback","notes":{"iss":"https://sso.example.com/realms/benchmark","scope":"openid profile email","response_type":"code","redirect_uri":"https://app.example.com/%s/callback","state":"b8c1f0a2-%d","nonce":"n-%d","SSO_AUTH":"false","code_challenge_method":"S256"},"action":"AUTHENTICATE"}`,
		clientID, clientID, ts, ts)
}
