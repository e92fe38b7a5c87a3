package postgres_test

import (
	"fmt"
	"testing"

	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/conversation/storetest"
	"regintel/shared/pgpool/pgtest"
)

func TestStreamsContract(t *testing.T) {
	for _, cache := range []bool{true, false} {
		t.Run(fmt.Sprintf("statementCache=%v", cache), func(t *testing.T) {
			_, runtime := pgtest.NewRuntimePoolsCaching(t, 5, cache)
			store := convpg.New(runtime)
			storetest.RunStreams(t, func(*testing.T) storetest.StreamStore { return store })
		})
	}
}
