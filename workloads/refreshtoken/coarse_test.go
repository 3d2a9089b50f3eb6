package refreshtoken

import (
	"math/rand/v2"
	"testing"
)

func TestGranularity(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ idle, want int64 }{{1800, 900}, {3, 1}, {1, 1}, {0, 1}, {2, 1}, {4, 2}} {
		if got := Granularity(c.idle); got != c.want {
			t.Errorf("Granularity(%d) = %d, want %d", c.idle, got, c.want)
		}
	}
}

func TestCoarseWorkedExample(t *testing.T) {
	t.Parallel()
	// created 1000, granularity 900: offset 100, boundaries at 100, 1000, 1900 ...
	cases := []struct{ last, want int64 }{{1000, 1000}, {1899, 1000}, {1900, 1900}, {2799, 1900}, {999, 100}}
	for _, c := range cases {
		if got := Coarse(c.last, 1000, 900); got != c.want {
			t.Errorf("Coarse(%d, 1000, 900) = %d, want %d", c.last, got, c.want)
		}
	}
}

func TestCoarseJavaFloorSemantics(t *testing.T) {
	t.Parallel()
	// Java's floorMod/floorDiv round towards negative infinity; Go's % and /
	// truncate. A refresh before the offset (possible with clock skew) must
	// still land on the boundary below it.
	if got := floorMod(-7, 5); got != 3 {
		t.Errorf("floorMod(-7,5) = %d, want 3", got)
	}
	if got := floorDiv(-7, 5); got != -2 {
		t.Errorf("floorDiv(-7,5) = %d, want -2", got)
	}
	if got := Coarse(50, 1000, 900); got != -800 {
		t.Errorf("Coarse(50, 1000, 900) = %d, want -800", got)
	}
}

func TestCoarseInvariant(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		g := 1 + r.Int64N(86400)
		created := Epoch + r.Int64N(1_000_000) - 500_000
		last := created + r.Int64N(10_000_000) - 1000
		c := Coarse(last, created, g)
		if !(last-g < c && c <= last) {
			t.Fatalf("Coarse(%d, %d, %d) = %d breaks last-g < coarse <= last", last, created, g, c)
		}
		if floorMod(c-created, g) != 0 {
			t.Fatalf("Coarse(%d, %d, %d) = %d is not on a boundary staggered by the creation time", last, created, g, c)
		}
	}
}

func TestCoarseChangesOnlyAtBoundaries(t *testing.T) {
	t.Parallel()
	// The default scenario: 10 refreshes 2 s apart, granularity 900 s. A
	// session crosses at most one boundary, and most cross none.
	created := Epoch + 17
	crossings := 0
	prev := Coarse(created, created, 900)
	for k := int64(1); k <= 10; k++ {
		c := Coarse(created+2*k, created, 900)
		if c != prev {
			crossings++
		}
		prev = c
	}
	if crossings != 0 {
		t.Errorf("a 20 s session crossed %d boundaries of a 900 s granularity staggered at its creation", crossings)
	}
}

func TestBucket(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	p := NewPlan(5000, 0, 2000, 200, 0, 1)
	for i := 0; i < 5000; i++ {
		id := p.sessionID(i)
		b := Bucket(id, 64)
		if b < 0 || b >= 64 {
			t.Fatalf("bucket %d out of range", b)
		}
		if Bucket(id, 64) != b {
			t.Fatal("bucket is not deterministic")
		}
		seen[b] = true
	}
	if len(seen) != 64 {
		t.Errorf("5000 sessions used %d of 64 buckets", len(seen))
	}
	if Bucket("x", 1) != 0 || Bucket("x", 0) != 0 {
		t.Error("one bucket means bucket 0")
	}
}

// JavaHashBucket is Math.floorMod(s.hashCode(), n): "abc".hashCode() is
// 96354, and "polygenelubricants".hashCode() is Integer.MIN_VALUE, whose
// floorMod is non-negative where Go's % would not be.
func TestJavaHashBucket(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		n    int
		want int
	}{{"abc", 64, 96354 % 64}, {"polygenelubricants", 100, 52}, {"polygenelubricants", 64, 0}, {"x", 1, 0}} {
		if got := JavaHashBucket(c.s, c.n); got != c.want {
			t.Errorf("JavaHashBucket(%q, %d) = %d, want %d", c.s, c.n, got, c.want)
		}
	}
	p := DefaultParams()
	p.BucketFunction = "java-hash"
	if p.bucket("abc") != 96354%64 || DefaultParams().bucket("abc") != Bucket("abc", 64) {
		t.Error("--bucket-function does not pick the function")
	}
}
