// Package secrets reads secrets from AWS Secrets Manager once, at cold
// start, so keys never sit in plain environment variables.
package secrets

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// Getter is the part of the Secrets Manager client used here.
type Getter interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, opts ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// NewClient returns a Secrets Manager client from the default AWS config.
func NewClient(ctx context.Context) (*secretsmanager.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("secrets: load AWS config: %w", err)
	}
	return secretsmanager.NewFromConfig(cfg), nil
}

// String returns the secret's string value. When field is set, the value
// is a JSON object and the field's value is returned (e.g. "apiKey").
func String(ctx context.Context, c Getter, arn, field string) (string, error) {
	out, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
	if err != nil {
		return "", fmt.Errorf("secrets: read secret: %w", err)
	}
	value := aws.ToString(out.SecretString)
	if field == "" {
		return value, nil
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(value), &obj); err != nil {
		// A plain-string secret is accepted for a single-valued field.
		return value, nil
	}
	v, ok := obj[field].(string)
	if !ok {
		return "", fmt.Errorf("secrets: secret has no string field %q", field)
	}
	return v, nil
}
