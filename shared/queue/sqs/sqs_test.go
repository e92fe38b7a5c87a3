package sqs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"regintel/shared/queue"
)

type fakeAPI struct {
	single  int
	batches []int
	bodies  []string
	refuse  map[string]bool // entry bodies containing these envelope ids are refused
	failAll error
}

func (f *fakeAPI) SendMessage(_ context.Context, in *awssqs.SendMessageInput, _ ...func(*awssqs.Options)) (*awssqs.SendMessageOutput, error) {
	if f.failAll != nil {
		return nil, f.failAll
	}
	f.single++
	f.bodies = append(f.bodies, aws.ToString(in.MessageBody))
	return &awssqs.SendMessageOutput{}, nil
}

func (f *fakeAPI) SendMessageBatch(_ context.Context, in *awssqs.SendMessageBatchInput, _ ...func(*awssqs.Options)) (*awssqs.SendMessageBatchOutput, error) {
	if f.failAll != nil {
		return nil, f.failAll
	}
	f.batches = append(f.batches, len(in.Entries))
	out := &awssqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		var env queue.Envelope
		_ = json.Unmarshal([]byte(aws.ToString(e.MessageBody)), &env)
		if f.refuse[env.ID] {
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("InternalError"), Message: aws.String("try again")})
			continue
		}
		f.bodies = append(f.bodies, aws.ToString(e.MessageBody))
		out.Successful = append(out.Successful, types.SendMessageBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

func envelopes(t *testing.T, n int) []queue.Envelope {
	var out []queue.Envelope
	for i := 0; i < n; i++ {
		env, err := queue.NewEnvelope(queue.TypeEnrichmentRequested, queue.EnrichmentRequested{ConceptID: fmt.Sprintf("TAX:IE:K%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

func TestPublishOneUsesSendMessage(t *testing.T) {
	api := &fakeAPI{}
	if err := NewPublisher(api, "https://queue.example/q").Publish(context.Background(), envelopes(t, 1)...); err != nil {
		t.Fatal(err)
	}
	if api.single != 1 || len(api.batches) != 0 {
		t.Fatalf("single=%d batches=%v", api.single, api.batches)
	}
	env, err := queue.Decode([]byte(api.bodies[0]))
	if err != nil || env.Type != queue.TypeEnrichmentRequested {
		t.Fatalf("body does not decode: %v", err)
	}
}

func TestPublishManyChunksByTen(t *testing.T) {
	api := &fakeAPI{}
	if err := NewPublisher(api, "https://queue.example/q").Publish(context.Background(), envelopes(t, 23)...); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(api.batches) != "[10 10 3]" || api.single != 0 || len(api.bodies) != 23 {
		t.Fatalf("batches=%v single=%d bodies=%d", api.batches, api.single, len(api.bodies))
	}
}

func TestPublishReportsPartialFailuresByEnvelopeID(t *testing.T) {
	msgs := envelopes(t, 12)
	api := &fakeAPI{refuse: map[string]bool{msgs[3].ID: true, msgs[11].ID: true}}
	err := NewPublisher(api, "https://queue.example/q").Publish(context.Background(), msgs...)
	var partial *PartialFailureError
	if !errors.As(err, &partial) {
		t.Fatalf("err = %v, want *PartialFailureError", err)
	}
	if strings.Join(partial.FailedIDs, ",") != msgs[3].ID+","+msgs[11].ID || len(api.bodies) != 10 {
		t.Fatalf("failed = %v, sent %d", partial.FailedIDs, len(api.bodies))
	}
	if !strings.Contains(err.Error(), msgs[3].ID) {
		t.Fatalf("error does not name the failed id: %v", err)
	}
}

func TestPublishReturnsCallErrors(t *testing.T) {
	api := &fakeAPI{failAll: errors.New("throttled")}
	if err := NewPublisher(api, "u").Publish(context.Background(), envelopes(t, 2)...); err == nil {
		t.Fatal("batch error swallowed")
	}
	if err := NewPublisher(api, "u").Publish(context.Background(), envelopes(t, 1)...); err == nil {
		t.Fatal("single error swallowed")
	}
}
