package capacity

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Byte units.
const (
	MB  = 1e6
	GB  = 1e9
	MiB = 1 << 20
	GiB = 1 << 30
	Day = 86400.0 // seconds
)

// Rate is operations per second, optionally of a named operation.
type Rate struct {
	Op        string  // "" = the workload's main operation
	PerSecond float64 // operations per second
	Text      string
}

var perUnit = map[string]float64{"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hour": 3600, "d": Day, "day": Day}

// RateGrammar is shown in errors and help.
const RateGrammar = `[OPERATION=]N[k|M]/(s|min|h|day), e.g. 500/s, 30k/min, refreshes=500/s`

// ParseRate reads "500/s", "30k/min", "1.8M/h", "refreshes=500/s".
func ParseRate(s string) (Rate, error) {
	r := Rate{Text: strings.TrimSpace(s)}
	fail := func(why string) (Rate, error) {
		return Rate{}, fmt.Errorf("--rate %q: %s (expected %s)", s, why, RateGrammar)
	}
	rest := r.Text
	if op, v, ok := strings.Cut(rest, "="); ok {
		r.Op, rest = strings.TrimSpace(op), strings.TrimSpace(v)
		if r.Op == "" || strings.ContainsAny(r.Op, " /") {
			return fail("the operation before = must be a name such as refreshes")
		}
	}
	num, unit, ok := strings.Cut(rest, "/")
	if !ok {
		return fail("missing the time unit (/s, /min, /h or /day)")
	}
	num, unit = strings.TrimSpace(num), strings.ToLower(strings.TrimSpace(unit))
	per, ok := perUnit[unit]
	if !ok {
		return fail("unknown time unit /" + unit)
	}
	mult := 1.0
	switch {
	case strings.HasSuffix(num, "k"), strings.HasSuffix(num, "K"):
		mult, num = 1e3, num[:len(num)-1]
	case strings.HasSuffix(num, "M"):
		mult, num = 1e6, num[:len(num)-1]
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" || strings.ContainsAny(num, "eEinxXpP_") {
		return fail("cannot read the number " + strconv.Quote(num))
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return fail("the rate must be a positive number")
	}
	r.PerSecond = v * mult / per
	if math.IsInf(r.PerSecond, 0) || r.PerSecond <= 0 {
		return fail("the rate is out of range")
	}
	return r, nil
}

// String is the rate per second, with its operation.
func (r Rate) String() string {
	op := r.Op
	if op == "" {
		op = "operations"
	}
	return fmt.Sprintf("%s %s/s", trimFloat(r.PerSecond), op)
}

// ParseByteRate reads a ceiling such as "50MiB/s", "36 MB/s", "1GiB/min";
// bytes per second. The amount is read by result.ParseBytes (go-humanize's
// byte units, the same as --budget's).
func ParseByteRate(s string) (float64, error) {
	fail := func(why string) (float64, error) {
		return 0, fmt.Errorf("--ceiling %q: %s (expected N followed by a byte unit (%s) and /s, /min or /h, e.g. 50MiB/s, or a named ceiling: %s)", s, why, result.ByteUnits, strings.Join(CeilingNames(), ", "))
	}
	amount, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return fail("missing /s")
	}
	per, ok := perUnit[strings.ToLower(strings.TrimSpace(unit))]
	if !ok {
		return fail("unknown time unit /" + unit)
	}
	v, err := result.ParseBytes(amount)
	if err != nil {
		return fail(err.Error())
	}
	if !(v > 0) {
		return fail("the amount must be positive")
	}
	return v / per, nil
}

// Ceiling is a log-rate limit.
type Ceiling struct {
	Name          string  `json:"name"`
	Title         string  `json:"title"`
	MiBPerSec     float64 `json:"mib_per_s,omitempty"`
	PerVCoreMiB   float64 `json:"per_vcore_mib_per_s,omitempty"`
	MaxMiBPerSec  float64 `json:"max_mib_per_s,omitempty"`
	Source        string  `json:"source"`
	VCores        int     `json:"vcores,omitempty"`
	BytesPerSec   float64 `json:"bytes_per_second"`
	UserSpecified bool    `json:"user_specified,omitempty"`
}

//go:embed ceilings.json
var ceilingsJSON []byte

type ceilingFile struct {
	Unit string `json:"unit"`
	// LogOf is the dialect whose log the ceilings limit.
	LogOf    string    `json:"log_of"`
	About    string    `json:"about"`
	Ceilings []Ceiling `json:"ceilings"`
}

func loadCeilings() ceilingFile {
	var f ceilingFile
	if err := json.Unmarshal(ceilingsJSON, &f); err != nil {
		panic("capacity: ceilings.json: " + err.Error())
	}
	if f.Unit != "MiB/s" {
		panic("capacity: ceilings.json must state MiB/s")
	}
	return f
}

// CeilingsAbout says where the table comes from.
func CeilingsAbout() string { return loadCeilings().About }

// Ceilings returns the published ceilings; per-vCore ones at their maximum.
func Ceilings() []Ceiling {
	var out []Ceiling
	for _, c := range loadCeilings().Ceilings {
		c.BytesPerSec = c.bytesPerSec(0)
		out = append(out, c)
	}
	return out
}

// CeilingNames lists the names --ceiling accepts.
func CeilingNames() []string {
	var out []string
	for _, c := range loadCeilings().Ceilings {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

func (c Ceiling) bytesPerSec(vcores int) float64 {
	if c.MiBPerSec > 0 {
		return c.MiBPerSec * MiB
	}
	v := c.MaxMiBPerSec
	if vcores > 0 {
		v = math.Min(c.PerVCoreMiB*float64(vcores), c.MaxMiBPerSec)
	}
	return v * MiB
}

// Label is the ceiling with its figure.
func (c Ceiling) Label() string {
	mib := c.BytesPerSec / MiB
	switch {
	case c.UserSpecified:
		return fmt.Sprintf("%s MiB/s (given)", trimFloat(mib))
	case c.PerVCoreMiB > 0 && c.VCores > 0:
		return fmt.Sprintf("%s, %d vCores: %s MiB/s", c.Title, c.VCores, trimFloat(mib))
	case c.PerVCoreMiB > 0:
		return fmt.Sprintf("%s: %s MiB/s (the maximum; %s MiB/s per vCore)", c.Title, trimFloat(mib), trimFloat(c.PerVCoreMiB))
	}
	return fmt.Sprintf("%s: %s MiB/s", c.Title, trimFloat(mib))
}

// Short is the ceiling's name and figure, for table rows.
func (c Ceiling) Short() string {
	if c.UserSpecified {
		return c.Label()
	}
	if c.PerVCoreMiB > 0 && c.VCores > 0 {
		return fmt.Sprintf("%s %d vCores %s MiB/s", c.Name, c.VCores, trimFloat(c.BytesPerSec/MiB))
	}
	if c.PerVCoreMiB > 0 {
		return fmt.Sprintf("%s max %s MiB/s", c.Name, trimFloat(c.BytesPerSec/MiB))
	}
	return fmt.Sprintf("%s %s MiB/s", c.Name, trimFloat(c.BytesPerSec/MiB))
}

// ResolveCeiling reads --ceiling: a name from the table (with vcores for
// per-vCore limits) or a byte rate such as 50MiB/s.
func ResolveCeiling(s string, vcores int) (Ceiling, error) {
	s = strings.TrimSpace(s)
	for _, c := range loadCeilings().Ceilings {
		if strings.EqualFold(c.Name, s) {
			if vcores > 0 && c.PerVCoreMiB == 0 {
				return Ceiling{}, fmt.Errorf("--vcores: %s has a fixed limit (%s MiB/s), not one per vCore", c.Name, trimFloat(c.MiBPerSec))
			}
			c.VCores = vcores
			c.BytesPerSec = c.bytesPerSec(vcores)
			return c, nil
		}
	}
	bps, err := ParseByteRate(s)
	if err != nil {
		return Ceiling{}, err
	}
	return Ceiling{Name: "given", Title: "--ceiling " + s, BytesPerSec: bps, UserSpecified: true, Source: "given on the command line"}, nil
}

func trimFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
