package result

// Unique is in without its repeats, in first-seen order: the notes and hints
// gathered from several runs, files or findings, which often say the same.
func Unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
