// Command writeamp measures what a write workload costs a database.
package main
