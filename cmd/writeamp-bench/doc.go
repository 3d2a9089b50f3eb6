// Command writeamp-bench measures writeamp against peers in the same run and
// prints ratios, never bare times: the machine is shared and noisy, a ratio
// to a peer measured minutes apart on the same server is what carries over.
// It writes its figures into docs/performance.md (perfdoc.go).
//
//	go run ./cmd/writeamp-bench -dsn postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable -writeamp bin/writeamp
package main
