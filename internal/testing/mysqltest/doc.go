// Package mysqltest is the shared helper of the MySQL/MariaDB integration
// tests: where the server is, and a throwaway database that is dropped again.
package mysqltest
