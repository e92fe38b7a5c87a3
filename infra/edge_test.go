package main

import (
	"slices"
	"strings"
	"testing"
)

// cachingDisabled is the id of CloudFront's managed CachingDisabled policy.
const cachingDisabled = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"

// Prod puts CloudFront in front of the chat URL: origin access control
// signs for Lambda, the URL only takes signed requests, CloudFront may
// invoke it both ways for this distribution only, and nothing is cached.
func TestProdChatIsBehindCloudFront(t *testing.T) {
	p := prod(t)
	oacs := p.resources("AWS::CloudFront::OriginAccessControl")
	if len(oacs) != 1 {
		t.Fatalf("%d origin access controls, want 1", len(oacs))
	}
	var oacID string
	for id, r := range oacs {
		oacID = id
		cfg := r["Properties"].(map[string]any)["OriginAccessControlConfig"].(map[string]any)
		if cfg["OriginAccessControlOriginType"] != "lambda" || cfg["SigningBehavior"] != "always" || cfg["SigningProtocol"] != "sigv4" {
			t.Errorf("origin access control %s, want lambda, always, sigv4", mustJSON(cfg))
		}
	}
	dists := p.resources("AWS::CloudFront::Distribution")
	if len(dists) != 1 {
		t.Fatalf("%d distributions, want 1", len(dists))
	}
	var distID string
	for id, r := range dists {
		distID = id
		dc := r["Properties"].(map[string]any)["DistributionConfig"].(map[string]any)
		origins := mustJSON(dc["Origins"])
		if !strings.Contains(origins, oacID) || !strings.Contains(origins, "ChatFunction") {
			t.Errorf("the distribution's origin %s is not the chat URL through the origin access control", origins)
		}
		b := dc["DefaultCacheBehavior"].(map[string]any)
		if b["CachePolicyId"] != cachingDisabled || b["Compress"] != false || len(asList(b["AllowedMethods"])) != 7 {
			t.Errorf("default behaviour %s, want CachingDisabled, no compression, every method", mustJSON(b))
		}
	}
	for _, url := range p.resources("AWS::Lambda::Url") {
		if a := url["Properties"].(map[string]any)["AuthType"]; a != "AWS_IAM" {
			t.Errorf("prod chat URL auth %v, want AWS_IAM", a)
		}
	}
	actions := map[string]bool{}
	for _, perm := range p.resources("AWS::Lambda::Permission") {
		pp := perm["Properties"].(map[string]any)
		if pp["Principal"] == "cloudfront.amazonaws.com" && strings.Contains(mustJSON(pp["FunctionName"]), `"ChatFunction`) && strings.Contains(mustJSON(pp["SourceArn"]), distID) {
			actions[pp["Action"].(string)] = true
		}
	}
	if !actions["lambda:InvokeFunctionUrl"] || !actions["lambda:InvokeFunction"] {
		t.Errorf("CloudFront may %v on the chat function for this distribution, want lambda:InvokeFunctionUrl and lambda:InvokeFunction", actions)
	}
	checkForwardedHeaders(t, p)
	if len(dev(t).resources("AWS::CloudFront::Distribution")) != 0 {
		t.Error("dev has a distribution; CloudFront is a prod default")
	}
}

// checkForwardedHeaders: CloudFront forwards what the API reads, and not
// Authorization, which origin access control signs with.
func checkForwardedHeaders(t *testing.T, p *synthesized) {
	for _, pol := range p.resources("AWS::CloudFront::OriginRequestPolicy") {
		hc := pol["Properties"].(map[string]any)["OriginRequestPolicyConfig"].(map[string]any)["HeadersConfig"].(map[string]any)
		got := asList(hc["Headers"])
		for _, h := range []string{"X-User-Authorization", "X-Amz-Content-Sha256", "Content-Type", "Last-Event-ID"} {
			if !slices.Contains(got, any(h)) {
				t.Errorf("CloudFront does not forward %s (forwards %v)", h, got)
			}
		}
		if slices.Contains(got, any("Authorization")) {
			t.Error("CloudFront forwards Authorization, which origin access control signs with")
		}
	}
}

// A public prod URL is a choice the context states.
func TestPublicProdURLIsAnExplicitChoice(t *testing.T) {
	bare := bareStages(t)
	if _, err := loadCtx(t, map[string]any{"stage": "prod", "stagesDir": bare, "chatAuthType": "NONE", "cloudFront": false}); err == nil ||
		!strings.Contains(err.Error(), "publicChatUrl=true") {
		t.Errorf("prod with a NONE URL and no choice: %v", err)
	}
	c, err := loadCtx(t, map[string]any{"stage": "prod", "stagesDir": bare, "chatAuthType": "NONE", "cloudFront": false, "publicChatUrl": true,
		"alarmTopicArn": "arn:aws:sns:eu-west-1:123456789012:t"})
	if err != nil || c.ChatAuthType != "NONE" {
		t.Errorf("prod with publicChatUrl=true: %v %v", c.ChatAuthType, err)
	}
	if c, err := loadCtx(t, map[string]any{"stage": "prod", "stagesDir": bare, "alarmTopicArn": "arn:aws:sns:eu-west-1:123456789012:t"}); err != nil || !c.CloudFront || c.ChatAuthType != "AWS_IAM" {
		t.Errorf("prod defaults: cloudFront %v, auth %q, %v; want CloudFront and AWS_IAM", c.CloudFront, c.ChatAuthType, err)
	}
}
