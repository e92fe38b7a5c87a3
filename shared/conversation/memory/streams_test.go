package memory_test

import (
	"testing"

	convmem "regintel/shared/conversation/memory"
	"regintel/shared/conversation/storetest"
)

func TestStreamsContract(t *testing.T) {
	storetest.RunStreams(t, func(*testing.T) storetest.StreamStore { return convmem.New() })
}
