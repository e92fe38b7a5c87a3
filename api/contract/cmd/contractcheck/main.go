// Command contractcheck validates the exchanges the main module's HTTP
// tests send it (api/apitest) against the OpenAPI document; it reads
// requests on stdin and answers on stdout until stdin closes.
package main

import (
	"fmt"
	"os"

	"regintel/api/contract"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "contractcheck:", err)
		os.Exit(1)
	}
}

func run() error {
	c, err := contract.Load()
	if err != nil {
		return err
	}
	return c.Serve(os.Stdin, os.Stdout)
}
