package measure

import "github.com/writeamp/writeamp/collectors"

// SetBeforeVacuum installs f as the hook between a variant's window and its
// vacuum's, until the returned func restores none.
func SetBeforeVacuum(f func(variant string, sc collectors.Scope)) func() {
	beforeVacuum = f
	return func() { beforeVacuum = nil }
}
