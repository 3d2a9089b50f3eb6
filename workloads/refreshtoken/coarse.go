package refreshtoken

import (
	"hash/fnv"
	"unicode/utf16"
)

// Granularity is how coarse LAST_SESSION_REFRESH_COARSE is: half of the
// realm's SSO session max idle, at least one second (Keycloak 26.8).
func Granularity(maxIdleSeconds int64) int64 {
	if g := maxIdleSeconds / 2; g > 1 {
		return g
	}
	return 1
}

// floorMod is Java's Math.floorMod: the result has the divisor's sign.
func floorMod(a, b int64) int64 {
	m := a % b
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return m
}

// floorDiv is Java's Math.floorDiv.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Coarse returns the coarse refresh value: boundaries every granularity
// seconds, staggered per session by its creation time so sessions do not all
// cross a boundary at once. lastRefresh-granularity < Coarse <= lastRefresh.
func Coarse(lastRefresh, createdOn, granularity int64) int64 {
	offset := floorMod(createdOn, granularity)
	return floorDiv(lastRefresh-offset, granularity)*granularity + offset
}

// Bucket spreads sessions over SESSION_BUCKET values with FNV-1a of the
// session id modulo the count. Keycloak's rule is not published (README.md in
// this directory); --bucket-function picks this or JavaHashBucket, --buckets
// the count.
func Bucket(sessionID string, buckets int) int {
	if buckets <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(sessionID))
	return int(h.Sum32() % uint32(buckets))
}

// JavaHashBucket is Math.floorMod(sessionId.hashCode(), buckets): what a Java
// implementation would most plainly write.
func JavaHashBucket(sessionID string, buckets int) int {
	if buckets <= 1 {
		return 0
	}
	var h int32
	for _, c := range utf16.Encode([]rune(sessionID)) {
		h = 31*h + int32(c)
	}
	return int(floorMod(int64(h), int64(buckets)))
}

// bucket is the session's SESSION_BUCKET under the run's --bucket-function.
func (p Params) bucket(sessionID string) int {
	if p.BucketFunction == "java-hash" {
		return JavaHashBucket(sessionID, p.Buckets)
	}
	return Bucket(sessionID, p.Buckets)
}
