package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsrds"
	"github.com/aws/jsii-runtime-go"
)

const dbPort = 5432

// database is the Aurora cluster and, optionally, the RDS Proxy the
// functions connect through. Functions authenticate with IAM tokens as
// cfg.DBAppUser; only migrate reads the master secret (to create that role).
type database struct {
	cluster awsrds.DatabaseCluster
	proxy   awsrds.DatabaseProxy // nil without rdsProxy
}

// host is the endpoint the runtime functions connect to.
func (d *database) host() *string {
	if d.proxy != nil {
		return d.proxy.Endpoint()
	}
	return d.cluster.ClusterEndpoint().Hostname()
}

// grantConnect allows grantee to log in as dbUser with an IAM token, scoped
// to this cluster's (or proxy's) resource id and that user only.
func (d *database) grantConnect(grantee awsiam.IGrantable, dbUser string) {
	if d.proxy != nil {
		d.proxy.GrantConnect(grantee, jsii.String(dbUser))
		return
	}
	d.cluster.GrantConnect(grantee, jsii.String(dbUser))
}

func newDatabase(s awscdk.Stack, cfg Config, n *network) *database {
	prod := cfg.IsProd()
	props := &awsrds.DatabaseClusterProps{
		Engine: awsrds.DatabaseClusterEngine_AuroraPostgres(&awsrds.AuroraPostgresClusterEngineProps{
			Version: awsrds.AuroraPostgresEngineVersion_VER_17_9(),
		}),
		Writer: awsrds.ClusterInstance_ServerlessV2(jsii.String("writer"), &awsrds.ServerlessV2ClusterInstanceProps{
			PubliclyAccessible:      jsii.Bool(false),
			AutoMinorVersionUpgrade: jsii.Bool(true),
		}),
		ServerlessV2MinCapacity: jsii.Number(cfg.DBMinCapacity),
		ServerlessV2MaxCapacity: jsii.Number(cfg.DBMaxCapacity),
		Vpc:                     n.vpc,
		VpcSubnets:              n.dbSubnet,
		SecurityGroups:          &[]awsec2.ISecurityGroup{n.dbSG},
		Port:                    jsii.Number(dbPort),
		DefaultDatabaseName:     jsii.String(cfg.DBName),
		Credentials: awsrds.Credentials_FromGeneratedSecret(jsii.String(cfg.DBMasterUser), &awsrds.CredentialsBaseOptions{
			// Keep the password URL- and DSN-safe.
			ExcludeCharacters: jsii.String(" %+~`#$&*()|[]{}:;<>?!'/@\"\\"),
		}),
		IamAuthentication:       jsii.Bool(true),
		StorageEncrypted:        jsii.Bool(true),
		Backup:                  &awsrds.BackupProps{Retention: awscdk.Duration_Days(jsii.Number(backupRetentionDays(prod)))},
		DeletionProtection:      jsii.Bool(cfg.DBDeletionProtection),
		RemovalPolicy:           awscdk.RemovalPolicy_DESTROY,
		CopyTagsToSnapshot:      jsii.Bool(true),
		CloudwatchLogsExports:   jsii.Strings("postgresql"),
		CloudwatchLogsRetention: retentionDays[cfg.LogRetentionDays],
		Parameters: &map[string]*string{
			// TLS only: the functions verify the certificate (verify-full) through
			// the proxy or with dbCaBundle, and encrypt without verifying (require)
			// otherwise.
			"rds.force_ssl": jsii.String("1"),
		},
	}
	if prod {
		props.RemovalPolicy = awscdk.RemovalPolicy_SNAPSHOT
	}
	if cfg.DBMinCapacity == 0 {
		// Scale to zero: pause after 10 idle minutes (no proxy, checked in config).
		props.ServerlessV2AutoPauseDuration = awscdk.Duration_Minutes(jsii.Number(10))
	}
	d := &database{cluster: awsrds.NewDatabaseCluster(s, jsii.String("Database"), props)}

	if cfg.DBSecretRotation {
		d.cluster.AddRotationSingleUser(&awsrds.RotationSingleUserOptions{
			AutomaticallyAfter: awscdk.Duration_Days(jsii.Number(30)),
			VpcSubnets:         n.appSubnet,
			// The first rotation waits for the schedule: rotating on create
			// would race migrate's master sign-in at the first deploy.
			RotateImmediatelyOnUpdate: jsii.Bool(false),
		})
	}

	if cfg.DBProxy {
		proxySG := awsec2.NewSecurityGroup(s, jsii.String("ProxySG"), &awsec2.SecurityGroupProps{
			Vpc:              n.vpc,
			Description:      jsii.String("regintel RDS Proxy: from the functions, to the database"),
			AllowAllOutbound: jsii.Bool(false),
		})
		proxyRole := awsiam.NewRole(s, jsii.String("ProxyRole"), &awsiam.RoleProps{
			AssumedBy:   awsiam.NewServicePrincipal(jsii.String("rds.amazonaws.com"), nil),
			Description: jsii.String("RDS Proxy end-to-end IAM auth to the regintel cluster"),
		})
		// End-to-end IAM: clients sign in to the proxy with IAM tokens, and
		// the proxy signs in to the database as the same user with IAM, so no
		// password secret is attached to the proxy.
		d.cluster.GrantConnect(proxyRole, jsii.String(cfg.DBAppUser))
		d.cluster.GrantConnect(proxyRole, jsii.String(cfg.DBSweepUser))
		d.proxy = d.cluster.AddProxy(jsii.String("Proxy"), &awsrds.DatabaseProxyOptions{
			DbProxyName:       jsii.String(cfg.DBProxyName),
			Vpc:               n.vpc,
			VpcSubnets:        n.dbSubnet,
			SecurityGroups:    &[]awsec2.ISecurityGroup{proxySG},
			Role:              proxyRole,
			DefaultAuthScheme: awsrds.DefaultAuthScheme_IAM_AUTH,
			IamAuth:           jsii.Bool(true),
			RequireTLS:        jsii.Bool(true),
			// pgx uses the simple/exec protocol paths the app configures, so
			// sessions are not pinned; keep the proxy's default filters.
			IdleClientTimeout: awscdk.Duration_Minutes(jsii.Number(30)),
		})
		// AddProxy opens the cluster's port to proxySG (ingress and egress).
	}
	return d
}

// allowFrom opens the database port (on the proxy when there is one) to sg.
func (d *database) allowFrom(sg awsec2.SecurityGroup, desc string) {
	if d.proxy != nil {
		d.proxy.Connections().AllowFrom(sg, awsec2.Port_Tcp(jsii.Number(dbPort)), jsii.String(desc))
		return
	}
	d.allowDirectFrom(sg, desc)
}

// allowDirectFrom opens the cluster's own port to sg, bypassing the proxy
// (migrate signs in with the master password before the IAM role exists).
func (d *database) allowDirectFrom(sg awsec2.SecurityGroup, desc string) {
	d.cluster.Connections().AllowDefaultPortFrom(sg, jsii.String(desc))
}

// rdsCaPath is where Lambda unpacks a file of the function's build directory.
const rdsCaPath = "/var/task/"

// tlsSettings are DB_SSLMODE and DB_SSLROOTCERT for a function. The proxy
// presents an ACM certificate the system roots verify; the cluster presents
// an RDS CA certificate, verified when dbCaBundle is packaged.
func (d *database) tlsSettings(cfg Config, viaProxy bool) (mode, rootCert string) {
	switch {
	case viaProxy && d.proxy != nil:
		return "verify-full", ""
	case cfg.DBCaBundle != "":
		return "verify-full", rdsCaPath + cfg.DBCaBundle
	default:
		return "require", ""
	}
}

// backupRetentionDays is the cluster's point-in-time restore window:
// Aurora's continuous backups let a restore pick any second from the
// earliest restorable time (this many days back) to the latest (a few
// minutes ago). infra/README.md's restore drill states the same numbers.
func backupRetentionDays(prod bool) float64 {
	if prod {
		return 14
	}
	return 3
}
