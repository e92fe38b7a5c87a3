package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfrontorigins"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// edgeHeaders are the request headers the chat API reads, forwarded to
// the Function URL. Authorization is not among them: origin access control
// signs the origin request with it, so the user's token travels in
// X-User-Authorization. x-amz-content-sha256 is the body hash the
// signature of a POST or PUT needs from the client.
var edgeHeaders = []string{
	"Accept", "Content-Type", "Last-Event-ID", "Origin",
	"X-Amz-Content-Sha256", "X-Conversation-Id", "X-Request-Id", "X-Stream-Protocol", "X-User-Authorization",
}

// addEdge puts CloudFront in front of the chat Function URL: origin access
// control signs every origin request (the URL's auth is AWS_IAM, so only
// this distribution may call it), nothing is cached, every method passes,
// and streamed responses pass through as they are written.
func (s *Stack) addEdge(fn awslambda.IFunction, url awslambda.FunctionUrl) awscloudfront.Distribution {
	headers := awscloudfront.OriginRequestHeaderBehavior_AllowList(*jsii.Strings(edgeHeaders...)...)
	originRequest := awscloudfront.NewOriginRequestPolicy(s.Stack, jsii.String("ChatOriginRequestPolicy"), &awscloudfront.OriginRequestPolicyProps{
		Comment:             jsii.String("regintel chat: the headers and query strings the API reads"),
		HeaderBehavior:      headers,
		QueryStringBehavior: awscloudfront.OriginRequestQueryStringBehavior_All(),
		CookieBehavior:      awscloudfront.OriginRequestCookieBehavior_None(),
	})
	props := &awscloudfront.DistributionProps{
		Comment: jsii.String("regintel " + s.cfg.Stage + " chat"),
		DefaultBehavior: &awscloudfront.BehaviorOptions{
			Origin: awscloudfrontorigins.FunctionUrlOrigin_WithOriginAccessControl(url, &awscloudfrontorigins.FunctionUrlOriginWithOACProps{
				ReadTimeout: awscdk.Duration_Seconds(jsii.Number(60)),
			}),
			AllowedMethods:       awscloudfront.AllowedMethods_ALLOW_ALL(),
			CachePolicy:          awscloudfront.CachePolicy_CACHING_DISABLED(),
			OriginRequestPolicy:  originRequest,
			ViewerProtocolPolicy: awscloudfront.ViewerProtocolPolicy_HTTPS_ONLY,
			Compress:             jsii.Bool(false), // compression would buffer the stream
		},
		HttpVersion:            awscloudfront.HttpVersion_HTTP2_AND_3,
		MinimumProtocolVersion: awscloudfront.SecurityPolicyProtocol_TLS_V1_2_2021,
		PriceClass:             awscloudfront.PriceClass_PRICE_CLASS_100,
	}
	if s.cfg.WafWebACLArn != "" {
		props.WebAclId = jsii.String(s.cfg.WafWebACLArn)
	}
	dist := awscloudfront.NewDistribution(s.Stack, jsii.String("ChatDistribution"), props)
	// The origin adds both permissions Function URLs with AWS_IAM auth need
	// for the CloudFront principal (lambda:InvokeFunctionUrl, and
	// lambda:InvokeFunction via the URL), each limited to this distribution.
	awscdk.NewCfnOutput(s.Stack, jsii.String("ChatUrl"), &awscdk.CfnOutputProps{
		Value:       jsii.String("https://" + *dist.DistributionDomainName()),
		Description: jsii.String("POST /chat here (CloudFront; send x-amz-content-sha256 with every POST body)"),
	})
	return dist
}
