// Package capacity projects a measured run to a production rate: log volume
// per second and per day, index leaf writes and rows changed per second, and
// the headroom against a log-rate ceiling (a published platform limit from
// ceilings.json, or one the user gives).
//
// Units are stated everywhere: MB = 10^6 bytes, GB = 10^9 bytes (decimal, as
// disks and cloud bills count), MiB = 2^20 bytes, GiB = 2^30 bytes (binary, as
// Azure states its log-rate limits). A day is 86,400 seconds at a constant rate.
package capacity
