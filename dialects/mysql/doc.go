// Package mysql is the MySQL/MariaDB dialect (MySQL 8.0/8.4, MariaDB
// 10.11/11.x, InnoDB): connection, flavor and version detection, capability
// flags probed from the server, the InnoDB monitors turned on for a measured
// window, and the purge wait before the "after" snapshot.
package mysql
