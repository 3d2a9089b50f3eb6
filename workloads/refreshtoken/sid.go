package refreshtoken

import (
	"bytes"
	"encoding/hex"
)

// sid is a session id the plan generated (sessionID: a version-4 UUID's
// text) in its 16 bytes. The expiration job's model holds one for every
// session left at the scenario's end and every preloaded one: as a string
// each took a 16-byte header and 48 bytes of text, most of a
// 150,000-login run's live heap while its job was planned.
type sid [16]byte

// parseSID is the id of text, when text is an id in sessionID's form
// exactly (lower-case hex, dashes at 8, 13, 18 and 23): anything else,
// an upper-case spelling of a plan's id included, is not one of the
// plan's sessions.
func parseSID(text string) (sid, bool) {
	var s sid
	if len(text) != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-' {
		return s, false
	}
	var h [32]byte
	copy(h[0:], text[0:8])
	copy(h[8:], text[9:13])
	copy(h[12:], text[14:18])
	copy(h[16:], text[19:23])
	copy(h[20:], text[24:36])
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return s, false
		}
	}
	if _, err := hex.Decode(s[:], h[:]); err != nil {
		return s, false
	}
	return s, true
}

func mustSID(text string) sid {
	s, ok := parseSID(text)
	if !ok {
		panic("refreshtoken: session id " + text + " is not in the plan's form")
	}
	return s
}

func (s sid) String() string {
	var b [36]byte
	hex.Encode(b[0:8], s[0:4])
	hex.Encode(b[9:13], s[4:6])
	hex.Encode(b[14:18], s[6:8])
	hex.Encode(b[19:23], s[8:10])
	hex.Encode(b[24:36], s[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}

func (s sid) compare(o sid) int { return bytes.Compare(s[:], o[:]) }
