package result

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
)

// How numbers are written, the same in every format (README, "Units"):
//
//   - counts (rows, entries, records, pages, waits): exact, with thousands
//     separators (15,000); per operation with three decimals (0.100), or
//     none from 100 up;
//   - bytes: always with a unit, binary (1 KiB = 1,024 B): below 1 KiB in
//     bytes (959.2 B), from 1 KiB with three significant digits (1.53 KiB,
//     22.4 MiB). A total the server counted also gets its exact byte count
//     where it stands alone (a table cell, a budget verdict):
//     22.4 MiB (23,484,848 B). Per-operation figures and sentences use the
//     short form;
//   - ratios as a percentage with one decimal (99.2%), times in ms.
//
// csv and json carry the exact number (csv with its unit in a column).

var binaryUnits = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// ByteScale is the binary unit a byte figure is written in: 0 = B, 1 = KiB ...
// The largest that leaves at least 1, and under 1,000 after rounding.
func ByteScale(v float64) int {
	a, s := math.Abs(v), 0
	for a >= 1024 && s < len(binaryUnits)-1 {
		a /= 1024
		s++
	}
	if s > 0 && a >= 999.5 && s < len(binaryUnits)-1 {
		s++
	}
	return s
}

// FormatBytesAt writes v bytes in the unit of scale with the usual
// precision (three significant digits, bytes with one decimal when not
// whole) plus extra decimals, for pairs that would otherwise print alike.
func FormatBytesAt(v float64, scale, extra int) string {
	if scale == 0 {
		if v == math.Trunc(v) && extra == 0 {
			return FormatCount(v) + " B"
		}
		return humanize.CommafWithDigits(v, 1+extra) + " B"
	}
	x := v / math.Pow(1024, float64(scale))
	d := 0
	switch a := math.Abs(x); {
	case a < 9.995:
		d = 2
	case a < 99.95:
		d = 1
	}
	return strconv.FormatFloat(x, 'f', d+extra, 64) + " " + binaryUnits[scale]
}

// FormatBytes is the short form: 959.2 B, 1.53 KiB, 22.4 MiB.
func FormatBytes(v float64) string { return FormatBytesAt(v, ByteScale(v), 0) }

// FormatBytesExact is the short form with the exact count from 1 KiB:
// 22.4 MiB (23,484,848 B).
func FormatBytesExact(v float64) string {
	s := FormatBytes(v)
	if ByteScale(v) == 0 {
		return s
	}
	n := FormatCount(v)
	if v != math.Trunc(v) {
		n = humanize.CommafWithDigits(v, 1)
	}
	return s + " (" + n + " B)"
}

// FormatCount writes a total count: 15,000, or with two decimals when it
// is not whole (a derived figure).
func FormatCount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e18 {
		return humanize.Comma(int64(v))
	}
	return humanize.CommafWithDigits(v, 2)
}

// FormatPerUnitCount writes a count per operation: 0.100, 12.058, 1,234.
func FormatPerUnitCount(v float64) string {
	if math.Abs(v) >= 100 {
		return humanize.CommafWithDigits(v, 0)
	}
	return humanize.CommafWithDigits(v, 3)
}

// FormatTotal writes a metric's value for a table cell, in its unit.
func FormatTotal(name string, v float64) string {
	i, _ := Lookup(name)
	switch i.Unit {
	case Fraction:
		return fmt.Sprintf("%.1f%%", 100*v)
	case Bytes:
		return FormatBytesExact(v)
	case Millis:
		return FormatCount(v) + " ms"
	case Seconds:
		return FormatCount(v) + " s"
	}
	return FormatCount(v)
}

// FormatShort writes a total in the short form (chart labels, sentences).
func FormatShort(name string, v float64) string {
	if i, _ := Lookup(name); i.IsBytes() {
		return FormatBytes(v)
	}
	return FormatTotal(name, v)
}

// FormatPerUnit writes a metric's value per operation (or per row changed).
func FormatPerUnit(name string, v float64) string {
	i, _ := Lookup(name)
	switch i.Unit {
	case Fraction:
		return fmt.Sprintf("%.1f%%", 100*v)
	case Bytes:
		return FormatBytes(v)
	case Millis:
		return FormatPerUnitCount(v) + " ms"
	}
	return FormatPerUnitCount(v)
}

// ByteUnits are the units a byte amount may be given in (any case), as
// go-humanize reads them: kB and KB are 10^3, KiB 2^10, and so on.
const ByteUnits = "B, kB, KiB, MB, MiB, GB, GiB, TB, TiB, PB, PiB, EB, EiB"

// ByteMultiplier is the number of bytes in one unit, read by
// humanize.ParseBytes. The unit must name bytes: humanize also takes a bare
// prefix ("k", "Mi") or nothing, which a reader could take for thousands,
// minutes or a count, so those are refused.
func ByteMultiplier(unit string) (float64, error) {
	u := strings.TrimSpace(unit)
	if u == "" || !strings.HasSuffix(strings.ToLower(u), "b") {
		return 0, fmt.Errorf("unknown byte unit %q (use one of %s)", unit, ByteUnits)
	}
	n, err := humanize.ParseBytes("1 " + u)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("unknown byte unit %q (use one of %s)", unit, ByteUnits)
	}
	return float64(n), nil
}

// ParseBytes reads a byte amount such as 2KiB, "36 MB" or 1.5GiB: a
// non-negative decimal number (commas allowed, as humanize allows them) and
// a unit of ByteUnits. A fraction of a byte is kept (humanize.ParseBytes
// would truncate it, and per-operation figures are fractional).
func ParseBytes(s string) (float64, error) {
	s = strings.TrimSpace(s)
	unit := strings.TrimLeft(s, "0123456789.,")
	num := strings.ReplaceAll(s[:len(s)-len(unit)], ",", "")
	v, err := strconv.ParseFloat(num, 64)
	if num == "" || err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("cannot read a number in %q", s)
	}
	m, err := ByteMultiplier(unit)
	if err != nil {
		return 0, err
	}
	if math.IsInf(v*m, 0) {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return v * m, nil
}
