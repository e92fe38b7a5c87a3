package main

import (
	"fmt"
	"path/filepath"
)

// checkOutdir refuses a relative cloud-assembly folder. cdk.json runs the
// app from infra/, so a relative CDK_OUTDIR (the CLI passes its -o, or
// cdk.out, as given) would be written under infra/ while the CLI reads
// it from the repository root: a deploy would then read an earlier
// synth's assembly, or none. Empty means the app's own temporary folder.
func checkOutdir(dir string) error {
	if dir == "" || filepath.IsAbs(dir) {
		return nil
	}
	return fmt.Errorf("CDK_OUTDIR %q is relative: the app runs in infra/ and the CDK CLI reads the assembly from the repository root; "+
		"use the make targets (they pass an absolute -o) or give the cdk CLI an absolute -o", dir)
}
