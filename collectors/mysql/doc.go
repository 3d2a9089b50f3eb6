// Package mysql holds the MySQL/MariaDB (InnoDB) collectors, one file per
// source view, and the deriver that fills the per-index writes InnoDB does
// not count.
package mysql
