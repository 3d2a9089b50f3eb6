package dialects

import (
	"errors"
	"strings"
)

// ReasonKind says what would make a missing capability available, so code
// branches on it and never on a reason's words.
type ReasonKind string

const (
	// Privilege: a GRANT (or role membership) fixes it.
	Privilege ReasonKind = "privilege"
	// Setting: a server setting or an extension fixes it.
	Setting ReasonKind = "setting"
	// Version: only another server version has it; no statement fixes it.
	Version ReasonKind = "version"
	// Role: the server's role (a standby, a replica) rules it out.
	Role ReasonKind = "role"
	// Unreadable: the server would have it, but reading it failed.
	Unreadable ReasonKind = "unreadable"
)

// Reason is why a capability is missing, what kind of cause that is, and
// the statement that fixes it (empty when none does). Text never holds the
// fix: String renders both at the edge.
type Reason struct {
	Kind ReasonKind `json:"kind,omitempty"`
	Text string     `json:"text"`
	Fix  string     `json:"fix,omitempty"`
	// AsSuperuser: the fix must be run by a superuser, not by the login.
	AsSuperuser bool `json:"as_superuser,omitempty"`
}

// String is the reason as one sentence, with its fix in parentheses.
func (r Reason) String() string {
	switch {
	case r.Fix == "":
		return r.Text
	case r.AsSuperuser:
		return r.Text + " (fix, as a superuser: " + r.Fix + ")"
	}
	return r.Text + " (fix: " + r.Fix + ")"
}

// FixLine is the fix as doctor prints it on its own line.
func (r Reason) FixLine() string {
	if r.AsSuperuser && r.Fix != "" {
		return "as a superuser: " + r.Fix
	}
	return r.Fix
}

// Unavailable is a collector's "the server cannot give this", carrying the
// typed reason; errors.Is(err, ErrUnsupported) holds for it.
type Unavailable struct {
	Reason
	// Lacks names the metrics the collector would have given (catalogue
	// names), so a caller asks "are rows per table missing?" by value.
	Lacks []string
}

func (u *Unavailable) Error() string { return ErrUnsupported.Error() + ": " + u.Reason.String() }

func (u *Unavailable) Unwrap() error { return ErrUnsupported }

// Unsupported is the error a collector's Supports returns for a missing
// capability: its typed reason, with context (what the collector would
// have read) joined before it.
func (s Server) Unsupported(c string, context ...string) *Unavailable {
	r := s.Reason(c)
	if len(context) > 0 {
		r.Text = strings.Join(append(context, r.Text), ": ")
	}
	return &Unavailable{Reason: r}
}

// Both is two reasons as one: either cause keeps the capability away.
func Both(a, b Reason) Reason {
	r := Reason{Kind: a.Kind, Text: a.Text + "; " + b.Text, Fix: a.Fix, AsSuperuser: a.AsSuperuser}
	if a.Kind != b.Kind {
		r.Kind = ""
	}
	switch {
	case b.Fix == "":
	case r.Fix == "":
		r.Fix, r.AsSuperuser = b.Fix, b.AsSuperuser
	case b.AsSuperuser && !a.AsSuperuser:
		r.Fix += "; or, as a superuser: " + b.Fix
	default:
		r.Fix += "; or " + b.Fix
	}
	return r
}

// Deny records a missing capability with its typed reason.
func (s *Server) Deny(c string, r Reason) { s.SetReason(c, false, r) }

// SetReason records a capability and, when it is missing, its typed reason.
func (s *Server) SetReason(c string, ok bool, r Reason) {
	s.Set(c, ok, r.String())
	if ok || r.Text == "" {
		return
	}
	if s.Details == nil {
		s.Details = map[string]Reason{}
	}
	s.Details[c] = r
}

// Reason is the typed reason a capability is missing. A server read from an
// older snapshot file has only the rendered text.
func (s Server) Reason(c string) Reason {
	if r, ok := s.Details[c]; ok {
		return r
	}
	return Reason{Text: s.Why(c)}
}

// ReasonOf is the typed reason an error from a collector's Supports or
// Collect carries: a missing privilege with its GRANT, a capability's
// reason, or just the error's text.
func ReasonOf(err error) Reason {
	var pe *PrivilegeError
	var un *Unavailable
	switch {
	case errors.As(err, &pe):
		r := Reason{Kind: Privilege, Text: "missing privilege " + pe.Privilege, Fix: pe.Grant}
		switch {
		case errors.As(pe.Err, &un):
			r.Text += ": " + un.Text
		case pe.Err != nil:
			r.Text += ": " + pe.Err.Error()
		}
		return r
	case errors.As(err, &un):
		return un.Reason
	}
	return Reason{Text: strings.TrimPrefix(err.Error(), ErrUnsupported.Error()+": ")}
}

// Lacking is what an error says the collector would have given.
func Lacking(err error) []string {
	var un *Unavailable
	if errors.As(err, &un) {
		return un.Lacks
	}
	return nil
}
