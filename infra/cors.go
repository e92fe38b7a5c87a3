package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// corsFile is generated from the HTTP routes table (`go generate
// ./shared/httpapi`), so the Function URL allows what the routes need.
const corsFile = "cors.json"

// corsPolicy is the shape of corsFile.
type corsPolicy struct {
	AllowMethods  []string `json:"allowMethods"`
	AllowHeaders  []string `json:"allowHeaders"`
	ExposeHeaders []string `json:"exposeHeaders"`
}

// sigV4Headers are what a SigV4-signing caller (IAM auth, CloudFront OAC)
// sends besides the app's own headers.
var sigV4Headers = []string{"X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256"}

var urlMethods = map[string]awslambda.HttpMethod{
	"GET": awslambda.HttpMethod_GET, "POST": awslambda.HttpMethod_POST, "PUT": awslambda.HttpMethod_PUT,
	"PATCH": awslambda.HttpMethod_PATCH, "DELETE": awslambda.HttpMethod_DELETE, "HEAD": awslambda.HttpMethod_HEAD,
}

func readCorsPolicy(path string) (corsPolicy, error) {
	var p corsPolicy
	b, err := os.ReadFile(path)
	if err != nil {
		return p, fmt.Errorf("CORS policy: %w (generate it with `go generate ./shared/httpapi`)", err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("CORS policy %s: %w", path, err)
	}
	if len(p.AllowMethods) == 0 || len(p.AllowHeaders) == 0 {
		return p, fmt.Errorf("CORS policy %s: no methods or headers", path)
	}
	return p, nil
}

// functionURLCors is the Function URL's CORS for the origins of cfg, with
// the methods and headers of the routes table.
func functionURLCors(cfg Config, path string) (*awslambda.FunctionUrlCorsOptions, error) {
	p, err := readCorsPolicy(path)
	if err != nil {
		return nil, err
	}
	methods := make([]awslambda.HttpMethod, 0, len(p.AllowMethods))
	for _, m := range p.AllowMethods {
		hm, ok := urlMethods[m]
		if !ok {
			return nil, fmt.Errorf("CORS policy %s: method %q is not a Function URL method", path, m)
		}
		methods = append(methods, hm)
	}
	headers := p.AllowHeaders
	if cfg.ChatAuthType == "AWS_IAM" {
		headers = append(headers, sigV4Headers...)
	}
	return &awslambda.FunctionUrlCorsOptions{
		AllowedOrigins: jsii.Strings(cfg.CorsOrigins...),
		AllowedMethods: &methods,
		AllowedHeaders: jsii.Strings(headers...),
		ExposedHeaders: jsii.Strings(p.ExposeHeaders...),
		MaxAge:         awscdk.Duration_Hours(jsii.Number(1)),
	}, nil
}
