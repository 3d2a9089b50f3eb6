package refreshtoken

import (
	"bytes"

	"github.com/google/uuid"
)

// sid is a session id the plan generated (sessionSID: a version-4 UUID) in
// its 16 bytes; String is its text, the ID column's value. The expiration
// job's model holds one for every session left at the scenario's end and
// every preloaded one: as a string each took a 16-byte header and 48 bytes
// of text, most of a 150,000-login run's live heap while its job was
// planned.
type sid = uuid.UUID

// parseSID is the id of text when text is an id as the plan writes it
// (String's form exactly): anything else, an upper-case spelling of a
// plan's id or uuid.Parse's other forms included, is none of the plan's
// sessions.
func parseSID(text string) (sid, bool) {
	s, err := uuid.Parse(text)
	return s, err == nil && s.String() == text
}

func compareSID(a, b sid) int { return bytes.Compare(a[:], b[:]) }
