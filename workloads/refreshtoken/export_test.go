package refreshtoken

// Test access to the expiration job's model.

// JobDeletesPerRun is how many sessions the model's job deletes in each run.
func (w *Workload) JobDeletesPerRun() (perRun []int, ids map[string]int) {
	live, end := w.liveAtEnd()
	jp := w.planJob(live, end)
	ids = map[string]int{}
	run := -1
	for _, b := range jp.batches {
		if b.tick != run {
			run = b.tick
			perRun = append(perRun, 0)
		}
		perRun[len(perRun)-1] += len(b.ids)
		for _, id := range b.ids {
			ids[id.String()] = b.tick
		}
	}
	return perRun, ids
}

// SetVariant makes the workload model a variant without preparing it.
func (w *Workload) SetVariant(v string) { w.variant = v }

// SessionID and LogsOut expose the plan's choices.
func (p *Plan) SessionID(i int) string { return p.sessionID(i) }
func (p *Plan) LogsOut(i int) bool     { return p.logouts[i] }

// IsOffline exposes the plan's offline choice.
func (p *Plan) IsOffline(i int) bool { return p.isOffline(i) }

// JobBatchRuns is the job run each of the model's batches belongs to, in
// the order the job issues them.
func (w *Workload) JobBatchRuns() []int {
	live, end := w.liveAtEnd()
	var out []int
	for _, b := range w.planJob(live, end).batches {
		out = append(out, b.tick)
	}
	return out
}
