package mysql

import driver "github.com/go-sql-driver/mysql"

// denied builds the driver's access-denied error (1227) for mocks.
func denied(msg string) error { return &driver.MySQLError{Number: 1227, Message: msg} }
