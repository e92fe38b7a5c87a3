package secrets

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

type fakeGetter map[string]string

func (f fakeGetter) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	v, ok := f[aws.ToString(in.SecretId)]
	if !ok {
		return nil, errors.New("ResourceNotFoundException")
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(v)}, nil
}

func TestString(t *testing.T) {
	g := fakeGetter{"plain": "sk-plain", "json": `{"apiKey":"sk-json","username":"u"}`}
	if v, err := String(context.Background(), g, "plain", ""); err != nil || v != "sk-plain" {
		t.Fatalf("plain: %q %v", v, err)
	}
	if v, err := String(context.Background(), g, "plain", "apiKey"); err != nil || v != "sk-plain" {
		t.Fatalf("plain with field: %q %v", v, err)
	}
	if v, err := String(context.Background(), g, "json", "apiKey"); err != nil || v != "sk-json" {
		t.Fatalf("json field: %q %v", v, err)
	}
	if _, err := String(context.Background(), g, "json", "password"); err == nil {
		t.Fatal("missing field accepted")
	}
	if _, err := String(context.Background(), g, "missing", ""); err == nil {
		t.Fatal("missing secret accepted")
	}
}
