package dialects

// OpenOption is an option of a dialect's Open, beyond the DSN.
type OpenOption func(*OpenOptions)

// OpenOptions are what Open was asked for; a dialect reads them with
// OpenOptionsOf and ignores what it cannot do.
type OpenOptions struct {
	// KernelWait: the connections wait for the server in the kernel
	// (internal/kernelwait), for the workers of a run that has a P to
	// spare for each (KernelWaiter dialects only).
	KernelWait bool
}

// KernelWait asks Open for connections that wait in the kernel (on) or on
// Go's network poller (off, the default).
func KernelWait(on bool) OpenOption { return func(o *OpenOptions) { o.KernelWait = on } }

// OpenOptionsOf applies opts in order (nil ones are skipped).
func OpenOptionsOf(opts []OpenOption) OpenOptions {
	var o OpenOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}
