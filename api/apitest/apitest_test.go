package apitest_test

import (
	"testing"

	"regintel/api/apitest"
)

func TestParseFrame(t *testing.T) {
	f := apitest.ParseFrame("id: 7\nevent: upsert\ndata: {}")
	if f != (apitest.Frame{ID: "7", Event: "upsert", Data: "{}"}) {
		t.Fatalf("%+v", f)
	}
}
