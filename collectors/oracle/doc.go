// Package oracle holds the Oracle collectors, one file per source view.
package oracle
