// Package sqstest gives tests queues on the moto SQS server that
// scripts/test-servers.sh starts (TEST_SQS_ENDPOINT).
package sqstest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"

	"regintel/shared/queue/sqs"
	"regintel/shared/testenv"
)

// Client returns an SQS client for the moto server, with fake credentials
// so nothing on the machine is used.
func Client(t testing.TB) *awssqs.Client {
	t.Helper()
	endpoint := testenv.Require(t, "TEST_SQS_ENDPOINT")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	client, err := sqs.NewClient(context.Background(), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// Queue is a queue with its dead-letter queue.
type Queue struct {
	URL, ARN string
	DLQURL   string
}

// NewQueue creates a uniquely named queue whose messages move to its
// dead-letter queue after maxReceiveCount receives. Its visibility timeout
// is zero, so a message not deleted is visible again at once: tests never
// wait for redelivery. Both are deleted when the test ends.
func NewQueue(t testing.TB, client *awssqs.Client, name string, maxReceiveCount int) Queue {
	t.Helper()
	ctx := context.Background()
	suffix := strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	dlq, err := client.CreateQueue(ctx, &awssqs.CreateQueueInput{QueueName: aws.String(name + "-dlq-" + suffix)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteQueue(context.Background(), &awssqs.DeleteQueueInput{QueueUrl: dlq.QueueUrl})
	})
	redrive := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, arn(t, client, *dlq.QueueUrl), maxReceiveCount)
	q, err := client.CreateQueue(ctx, &awssqs.CreateQueueInput{QueueName: aws.String(name + "-" + suffix), Attributes: map[string]string{
		"RedrivePolicy":     redrive,
		"VisibilityTimeout": "0",
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteQueue(context.Background(), &awssqs.DeleteQueueInput{QueueUrl: q.QueueUrl})
	})
	return Queue{URL: *q.QueueUrl, ARN: arn(t, client, *q.QueueUrl), DLQURL: *dlq.QueueUrl}
}

func arn(t testing.TB, client *awssqs.Client, queueURL string) string {
	t.Helper()
	out, err := client.GetQueueAttributes(context.Background(), &awssqs.GetQueueAttributesInput{
		QueueUrl: aws.String(queueURL), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["QueueArn"]
}
