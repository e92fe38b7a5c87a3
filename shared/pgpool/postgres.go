// Package pgpool builds the pgx connection pool the functions share
// (package dbsetup applies the schema migrations).
//
// The pool is shaped for Lambda: few connections per execution environment,
// none opened until the first query, statements that never leave named
// prepared statements on the server (so RDS Proxy can multiplex), and
// optional IAM authentication with a token minted for every new connection.
package pgpool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/rds/auth"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultMaxConns is the pool size per Lambda execution environment. One
// environment serves one request at a time; the second connection lets a
// background write overlap the next query without queueing.
const DefaultMaxConns = 2

// Config says how to reach the database.
type Config struct {
	// URL is a libpq-style connection string (postgres://user@host:port/db?sslmode=...).
	URL string
	// MaxConns caps the pool; zero means DefaultMaxConns.
	MaxConns int32
	// StatementCache prepares each statement once per connection and reuses
	// its plan. Off, every statement is parsed and planned on each run
	// (about half of Postgres's CPU per chat turn), but no session state is
	// left behind: behind RDS Proxy a prepared statement pins the client to
	// one database connection.
	StatementCache bool
	// IAMAuth mints an RDS IAM auth token as the password of every new
	// connection. It requires TLS.
	IAMAuth bool
	// Region is the AWS region for IAM tokens; empty means the SDK default
	// (AWS_REGION in Lambda).
	Region string
	// Credentials signs IAM tokens; nil means the SDK default chain. Tests
	// set it to avoid touching the environment.
	Credentials aws.CredentialsProvider
}

// NewPool builds a pool from cfg without connecting: the first query opens
// the first connection, so a cold start that never touches the database
// pays nothing and a database that is down fails that query, not startup.
func NewPool(ctx context.Context, cfg Config) (*pgxpool.Pool, error) {
	poolCfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		// The parse error may quote the URL, password included.
		return nil, errors.New("postgres: cannot parse the connection string")
	}
	poolCfg.MaxConns = cfg.MaxConns
	if poolCfg.MaxConns <= 0 {
		poolCfg.MaxConns = DefaultMaxConns
	}
	poolCfg.MinConns = 0
	// Lambda freezes idle environments; connections held across a long
	// freeze are usually dead (or killed by the proxy), so recycle them.
	poolCfg.MaxConnIdleTime = 5 * time.Minute
	poolCfg.MaxConnLifetime = 30 * time.Minute

	// Without the cache, QueryExecModeExec: the extended protocol with the
	// unnamed statement, parameters bound by the server, one round trip per
	// query, no per-session state (RDS Proxy does not pin); unlike the
	// simple protocol it never interpolates values into SQL text. Queries
	// cast ($1::uuid, $2::jsonb) where the column type is not text, so both
	// modes bind the same types.
	poolCfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	if cfg.StatementCache {
		poolCfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	}
	poolCfg.ConnConfig.Tracer = queryTracer{}

	if cfg.IAMAuth {
		if err := requireTLS(poolCfg.ConnConfig); err != nil {
			return nil, err
		}
		mint, err := iamTokenMinter(ctx, cfg, poolCfg.ConnConfig)
		if err != nil {
			return nil, err
		}
		poolCfg.BeforeConnect = func(ctx context.Context, cc *pgx.ConnConfig) error {
			token, err := mint(ctx, cc)
			if err != nil {
				return fmt.Errorf("postgres: minting an IAM auth token: %w", err)
			}
			cc.Password = token
			return nil
		}
	}

	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	slog.Info("postgres pool ready",
		"host", poolCfg.ConnConfig.Host, "database", poolCfg.ConnConfig.Database,
		"maxConns", poolCfg.MaxConns, "iamAuth", cfg.IAMAuth, "statementCache", cfg.StatementCache)
	return pool, nil
}

// requireTLS refuses a configuration that could send an IAM token in clear
// text, including through a non-TLS fallback (sslmode=prefer or allow).
func requireTLS(cc *pgx.ConnConfig) error {
	if cc.TLSConfig == nil {
		return errors.New("postgres: IAM auth needs TLS: use sslmode=require or verify-full")
	}
	for _, fb := range cc.Fallbacks {
		if fb.TLSConfig == nil {
			return errors.New("postgres: IAM auth needs TLS without plain-text fallback: use sslmode=require or verify-full")
		}
	}
	return nil
}

type tokenMinter func(ctx context.Context, cc *pgx.ConnConfig) (string, error)

// iamTokenMinter returns a function that signs a fresh token (valid 15
// minutes, only needed at connect) for the connection's host, port and user.
func iamTokenMinter(ctx context.Context, cfg Config, cc *pgx.ConnConfig) (tokenMinter, error) {
	if cc.User == "" {
		return nil, errors.New("postgres: IAM auth needs a database user")
	}
	region, creds := cfg.Region, cfg.Credentials
	if region == "" || creds == nil {
		awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("postgres: loading AWS config for IAM auth: %w", err)
		}
		if region == "" {
			region = awsCfg.Region
		}
		if creds == nil {
			creds = awsCfg.Credentials
		}
	}
	if strings.TrimSpace(region) == "" {
		return nil, errors.New("postgres: IAM auth needs an AWS region (AWS_REGION)")
	}
	return func(ctx context.Context, cc *pgx.ConnConfig) (string, error) {
		endpoint := net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port)))
		return auth.BuildAuthToken(ctx, endpoint, region, cc.User, creds)
	}, nil
}
