package main

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// hoursPerMonth is the month AWS's pricing pages use.
const hoursPerMonth = 730

// unitPrices are AWS list prices in us-east-1 (USD), as AWS's pricing
// pages state them; eu-west-1 is the same or within a few percent. Every
// dollar figure of the README's idle cost table is a count from a
// synthesized template times one of these.
var unitPrices = struct {
	NATHour, PublicIPv4Hour, ProxyACUHour, ProxyMinACU, AuroraACUHour      float64
	AlarmMetricMonth, InterfaceEndpointAZHour, SecretMonth, DashboardMonth float64
}{
	NATHour:                 0.045, // Amazon VPC pricing: NAT gateway per hour (data processed extra)
	PublicIPv4Hour:          0.005, // Amazon VPC pricing: each public IPv4 address, in use or idle
	ProxyACUHour:            0.015, // Amazon RDS Proxy pricing, Aurora Serverless v2 target: per ACU-hour
	ProxyMinACU:             8,     // ... billed for at least 8 ACUs
	AuroraACUHour:           0.12,  // Amazon Aurora pricing: Serverless v2 (Standard) per ACU-hour
	AlarmMetricMonth:        0.10,  // Amazon CloudWatch pricing: standard-resolution alarm per metric
	InterfaceEndpointAZHour: 0.01,  // AWS PrivateLink pricing: interface endpoint per AZ per hour
	SecretMonth:             0.40,  // AWS Secrets Manager pricing: per secret per month
	DashboardMonth:          3.00,  // Amazon CloudWatch pricing: per custom dashboard per month
}

// memgraphAssumption is the graph's line: Memgraph runs outside the
// stack, self-hosted, assumed here to be one on-demand t4g.medium (2 vCPU,
// 4 GiB: the rules graph is small and held in memory) with a 20 GB gp3
// volume. Not counted from a template: change it with the host you run.
var memgraphAssumption = struct{ InstanceHour, VolumeGB, GP3GBMonth float64 }{
	InstanceHour: 0.0336, // Amazon EC2 on-demand pricing, t4g.medium, Linux
	VolumeGB:     20,
	GP3GBMonth:   0.08, // Amazon EBS pricing: gp3 per GB-month
}

type costLine struct {
	item string
	usd  float64
}

// idleCost prices what a synthesized template runs while nobody uses it.
func idleCost(s *synthesized, withGraph bool) []costLine {
	minACU := 0.0
	for _, c := range s.resources("AWS::RDS::DBCluster") {
		scaling, _ := c["Properties"].(map[string]any)["ServerlessV2ScalingConfiguration"].(map[string]any)
		minACU += scaling["MinCapacity"].(float64)
	}
	endpointAZs := 0
	for _, e := range s.resources("AWS::EC2::VPCEndpoint") {
		p := e["Properties"].(map[string]any)
		if p["VpcEndpointType"] == "Interface" {
			endpointAZs += len(asList(p["SubnetIds"]))
		}
	}
	p := unitPrices
	lines := []costLine{
		{"NAT gateways", float64(len(s.resources("AWS::EC2::NatGateway"))) * p.NATHour * hoursPerMonth},
		{"public IPv4 addresses (the NATs' Elastic IPs)", float64(len(s.resources("AWS::EC2::EIP"))) * p.PublicIPv4Hour * hoursPerMonth},
		{"RDS Proxy (8 ACU minimum)", float64(len(s.resources("AWS::RDS::DBProxy"))) * p.ProxyMinACU * p.ProxyACUHour * hoursPerMonth},
		{"Aurora Serverless v2 at its minimum ACU", minACU * p.AuroraACUHour * hoursPerMonth},
		{"CloudWatch alarms (per metric watched)", float64(costLineItems(s)["metrics those alarms watch"]) * p.AlarmMetricMonth},
		{"CloudWatch dashboards", float64(len(s.resources("AWS::CloudWatch::Dashboard"))) * p.DashboardMonth},
		{"VPC interface endpoints (per AZ)", float64(endpointAZs) * p.InterfaceEndpointAZHour * hoursPerMonth},
		{"Secrets Manager secrets the stack creates", float64(len(s.resources("AWS::SecretsManager::Secret"))) * p.SecretMonth},
	}
	graph := 0.0
	if withGraph {
		m := memgraphAssumption
		graph = m.InstanceHour*hoursPerMonth + m.VolumeGB*m.GP3GBMonth
	}
	return append(lines, costLine{"Memgraph, self-hosted (assumption: one t4g.medium + 20 GB gp3)", graph})
}

func dollars(v float64) string { return fmt.Sprintf("$%.2f", math.Round(v*100)/100) }

// costDollarRow is a row of the README's computed idle cost table.
var costDollarRow = regexp.MustCompile(`(?m)^\| ([^|]+?) \| (\$[\d.]+) \| (\$[\d.]+) \|$`)

// TestIdleCostDollarsMatchTheTemplates: the README's idle dollar table is
// the templates' counts (dev as committed; prod with a graph, the proxy
// and CloudFront) times unitPrices, row by row and in total. On a
// mismatch the error prints the table as it should read.
func TestIdleCostDollarsMatchTheTemplates(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "<!-- idle dollars:")
	if i < 0 {
		t.Fatal("README.md has no computed idle cost table")
	}
	table := string(readme[i:])
	table = table[:strings.Index(table, "\n\n")]
	devLines, prodLines := idleCost(dev(t), false), idleCost(prod(t), true)
	var want strings.Builder
	want.WriteString("| line item, per month | dev | prod |\n|---|---|---|\n")
	var devTotal, prodTotal float64
	for k := range devLines {
		fmt.Fprintf(&want, "| %s | %s | %s |\n", devLines[k].item, dollars(devLines[k].usd), dollars(prodLines[k].usd))
		devTotal += devLines[k].usd
		prodTotal += prodLines[k].usd
	}
	fmt.Fprintf(&want, "| total | %s | %s |", dollars(devTotal), dollars(prodTotal))
	got := costDollarRow.FindAllStringSubmatch(table, -1)
	wantRows := costDollarRow.FindAllStringSubmatch(want.String(), -1)
	same := len(got) == len(wantRows)
	for k := 0; same && k < len(got); k++ {
		same = got[k][0] == wantRows[k][0]
	}
	if !same {
		t.Errorf("README's idle dollar table differs from the templates; it should read:\n%s", want.String())
	}
	if _, err := strconv.ParseFloat(strings.TrimPrefix(dollars(prodTotal), "$"), 64); err != nil || prodTotal <= devTotal {
		t.Errorf("prod %s is not above dev %s", dollars(prodTotal), dollars(devTotal))
	}
}
