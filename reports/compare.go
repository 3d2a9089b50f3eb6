package reports

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Input is one result file given to compare, with the label the user chose
// for it ("" = the run's own label or variant).
type Input struct {
	Path   string
	Label  string
	Result *result.Result
}

// Merge puts the runs of several results side by side in one result
// document, labelled, so every renderer (json included) shows a comparison
// of saved results exactly as it shows the variants of one run. Columns
// keep the order of the files, then of the runs within each file.
func Merge(in []Input) (*result.Result, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("nothing to compare")
	}
	out := *in[0].Result
	out.Runs = nil
	out.Notes = nil
	servers, workloads := map[string]bool{}, map[string]bool{}
	type col struct {
		run  result.Run
		file string
	}
	var cols []col
	for _, f := range in {
		servers[f.Result.Server.Name+"/"+f.Result.Server.Dialect] = true
		workloads[f.Result.Workload.Name+fmt.Sprint(f.Result.Workload.Params)] = true
		for _, r := range f.Result.Runs {
			name := r.Label
			if name == "" {
				name = r.Variant
			}
			switch {
			case f.Label != "" && len(f.Result.Runs) > 1:
				r.Label = f.Label + " " + name
			case f.Label != "":
				r.Label = f.Label
			default:
				r.Label = name
			}
			cols = append(cols, col{run: r, file: filepath.Base(f.Path)})
		}
		out.Notes = append(out.Notes, f.Result.Notes...)
	}
	// Two files of the same variant (before/after a migration) would show
	// two identical headers: name the file where a label repeats.
	count := map[string]int{}
	for _, c := range cols {
		count[strings.ToLower(c.run.Label)]++
	}
	for i := range cols {
		if count[strings.ToLower(cols[i].run.Label)] > 1 {
			cols[i].run.Label += " (" + cols[i].file + ")"
		}
	}
	for _, c := range cols {
		out.Runs = append(out.Runs, c.run)
	}
	if len(servers) > 1 {
		out.Server.Name = "several servers"
		var names []string
		for _, f := range in {
			names = append(names, filepath.Base(f.Path)+": "+f.Result.Server.Name)
		}
		out.Notes = append(out.Notes, "the results come from different servers ("+strings.Join(names, "; ")+"): differences include the servers'")
	}
	if len(workloads) > 1 {
		var names []string
		seen := map[string]bool{}
		for _, f := range in {
			if !seen[f.Result.Workload.Name] {
				seen[f.Result.Workload.Name] = true
				names = append(names, f.Result.Workload.Name)
			}
		}
		sort.Strings(names)
		out.Workload = result.Workload{Name: strings.Join(names, " vs "), Mixed: true}
		out.Notes = append(out.Notes, "the results ran different workloads or parameters: compare the per-unit figures, not the totals")
	}
	out.Notes = result.Unique(out.Notes)
	return &out, nil
}
