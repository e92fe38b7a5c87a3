package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

func nagFindings(s *synthesized) (errs, warns []string) {
	a := assertions.Annotations_FromStack(s.stack.Stack)
	re := assertions.Match_StringLikeRegexp(jsii.String("AwsSolutions-"))
	for _, m := range *a.FindError(jsii.String("*"), re) {
		errs = append(errs, *m.Id+": "+firstLine(m.Entry.Data))
	}
	for _, m := range *a.FindWarning(jsii.String("*"), re) {
		warns = append(warns, *m.Id+": "+firstLine(m.Entry.Data))
	}
	return errs, warns
}

func firstLine(v any) string {
	s, _ := v.(string)
	if s == "" {
		s = mustJSON(v)
	}
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}

// TestNagAwsSolutions fails on any AwsSolutions finding that is not
// suppressed (with its reason) in nag.go, for every stack variant.
func TestNagAwsSolutions(t *testing.T) {
	for name, s := range map[string]*synthesized{"dev": dev(t), "prod": prod(t), "memgraph-sg": memgraphBySG(t), "existing-vpc": existingVpc(t)} {
		errs, warns := nagFindings(s)
		for _, e := range errs {
			t.Errorf("%s: unsuppressed cdk-nag error %s", name, e)
		}
		for _, w := range warns {
			t.Errorf("%s: unsuppressed cdk-nag warning %s", name, w)
		}
	}
}

// TestNagCatchesFindings proves the check above can fail: without the
// suppressions, the same stack has findings (read as annotations, with the
// validation report off), and with cdk.json's flags the synth fails on them.
func TestNagCatchesFindings(t *testing.T) {
	errs, _ := nagFindings(synth(t, map[string]any{validationReportFlag: false}, false))
	want := []string{"AwsSolutions-IAM4", "AwsSolutions-IAM5", "AwsSolutions-SMG4", "AwsSolutions-RDS10"}
	for _, rule := range want {
		found := false
		for _, e := range errs {
			found = found || strings.Contains(e, rule)
		}
		if !found {
			t.Errorf("unsuppressed stack has no %s finding; got %v", rule, errs)
		}
	}
	failed := func() (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = fmt.Sprint(r)
			}
		}()
		synth(t, nil, false)
		return ""
	}()
	if !strings.Contains(failed, "ValidationFailed") {
		t.Errorf("unsuppressed stack synthesized with cdk.json's flags (%q): nag findings must fail the synth", failed)
	}
}

// validationReportFlag turns error annotations (cdk-nag's findings) into
// a failed synth.
const validationReportFlag = "@aws-cdk/core:annotationsInValidationReport"
