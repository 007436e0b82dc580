//go:build !unix

package engine_test

import "errors"

func makeFIFO(string) error { return errors.New("no named pipes here") }
