package main

// The built-in workloads: importing a workload's package registers it (its
// init calls workloads.Register), and `writeamp run` has a command for each
// registered workload, with the workload's own flags. Adding one is its
// package and one line here.
import (
	_ "github.com/writeamp/writeamp/workloads/refreshtoken"
)
