package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// costLineItems counts, in a synthesized template, what the idle cost
// table prices: resources billed by the hour and the alarms' metrics.
func costLineItems(s *synthesized) map[string]int {
	alarms := s.resources("AWS::CloudWatch::Alarm")
	metrics := 0
	for _, a := range alarms {
		p := a["Properties"].(map[string]any)
		if queries, ok := p["Metrics"].([]any); ok {
			for _, q := range queries {
				if _, stat := q.(map[string]any)["MetricStat"]; stat {
					metrics++
				}
			}
			continue
		}
		metrics++
	}
	return map[string]int{
		"NAT gateways":               len(s.resources("AWS::EC2::NatGateway")),
		"Elastic IPs":                len(s.resources("AWS::EC2::EIP")),
		"RDS Proxies":                len(s.resources("AWS::RDS::DBProxy")),
		"CloudWatch alarms":          len(alarms),
		"metrics those alarms watch": metrics,
		"VPC interface endpoints":    len(s.resources("AWS::EC2::VPCEndpoint")),
		"AWS Budgets":                len(s.resources("AWS::Budgets::Budget")),
	}
}

// costTableRow is a row of the README's idle line-item table.
var costTableRow = regexp.MustCompile(`(?m)^\| ([^|(]+?)(?: \([^|]*\))? \| (\d+) \| (\d+) \|$`)

// The README's idle line items are the templates' own counts, dev and
// prod (with a graph, the proxy and CloudFront), so the cost table
// cannot drift from what a deploy creates.
func TestCostLineItemsMatchTheTemplates(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "<!-- idle line items:")
	if i < 0 {
		t.Fatal("README.md has no idle line-item table")
	}
	table := string(readme[i:])
	table = table[:strings.Index(table, "\n\n")]
	got := map[string]map[string]int{"dev": costLineItems(dev(t)), "prod": costLineItems(prod(t))}
	seen := map[string]bool{}
	for _, m := range costTableRow.FindAllStringSubmatch(table, -1) {
		item := m[1]
		seen[item] = true
		for col, stage := range []string{"dev", "prod"} {
			want, _ := strconv.Atoi(m[2+col])
			count, ok := got[stage][item]
			if !ok {
				t.Errorf("README line item %q is not counted from the templates", item)
				break
			}
			if count != want {
				t.Errorf("%s %s: the README says %d, the template has %d", stage, item, want, count)
			}
		}
	}
	for item := range got["dev"] {
		if !seen[item] {
			t.Errorf("the README's line-item table lacks %q", item)
		}
	}
}
