package main

import (
	"fmt"
	"net"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// network is the VPC, the subnets each tier lives in, and the security
// groups: functions (egress only, explicit rules) and database (ingress from
// the functions only).
type network struct {
	vpc       awsec2.IVpc
	appSubnet *awsec2.SubnetSelection // functions: private with egress (NAT)
	dbSubnet  *awsec2.SubnetSelection // database: isolated
	fnSG      awsec2.SecurityGroup    // runtime functions
	adminSG   awsec2.SecurityGroup    // migrate: reaches the cluster directly, past the proxy
	dbSG      awsec2.SecurityGroup
	mgSG      awsec2.ISecurityGroup  // imported Memgraph group, when given by id
	mgRoutes  []constructs.Construct // routes to Memgraph over the peering
}

func newNetwork(s awscdk.Stack, cfg Config) *network {
	n := &network{}
	if cfg.VpcID == "" {
		flowLogs := awslogs.NewLogGroup(s, jsii.String("VpcFlowLogs"), &awslogs.LogGroupProps{
			Retention:     retentionDays[cfg.LogRetentionDays],
			RemovalPolicy: removalPolicy(cfg),
		})
		n.vpc = awsec2.NewVpc(s, jsii.String("Vpc"), &awsec2.VpcProps{
			IpAddresses:                  awsec2.IpAddresses_Cidr(jsii.String(cfg.VpcCidr)),
			MaxAzs:                       jsii.Number(cfg.MaxAzs),
			NatGateways:                  jsii.Number(cfg.NatGateways),
			RestrictDefaultSecurityGroup: jsii.Bool(true),
			SubnetConfiguration: &[]*awsec2.SubnetConfiguration{
				{Name: jsii.String("public"), SubnetType: awsec2.SubnetType_PUBLIC, CidrMask: jsii.Number(24)},
				{Name: jsii.String("app"), SubnetType: awsec2.SubnetType_PRIVATE_WITH_EGRESS, CidrMask: jsii.Number(20)},
				{Name: jsii.String("data"), SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED, CidrMask: jsii.Number(24)},
			},
			FlowLogs: &map[string]*awsec2.FlowLogOptions{
				"all": {
					Destination: awsec2.FlowLogDestination_ToCloudWatchLogs(flowLogs, nil),
					TrafficType: awsec2.FlowLogTrafficType_ALL,
				},
			},
		})
		n.appSubnet = &awsec2.SubnetSelection{SubnetType: awsec2.SubnetType_PRIVATE_WITH_EGRESS}
		n.dbSubnet = &awsec2.SubnetSelection{SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED}
	} else {
		// Offline import: no lookup, so `cdk synth` needs no credentials.
		attrs := &awsec2.VpcAttributes{
			VpcId:             jsii.String(cfg.VpcID),
			AvailabilityZones: jsii.Strings(cfg.AvailabilityZones...),
			PrivateSubnetIds:  jsii.Strings(cfg.PrivateSubnetIDs...),
		}
		if cfg.VpcCidr != "" {
			attrs.VpcCidrBlock = jsii.String(cfg.VpcCidr)
		}
		if len(cfg.PrivateRouteTable) > 0 {
			attrs.PrivateSubnetRouteTableIds = jsii.Strings(cfg.PrivateRouteTable...)
		}
		n.dbSubnet = &awsec2.SubnetSelection{SubnetType: awsec2.SubnetType_PRIVATE_WITH_EGRESS}
		if len(cfg.IsolatedSubnetIDs) > 0 {
			attrs.IsolatedSubnetIds = jsii.Strings(cfg.IsolatedSubnetIDs...)
			n.dbSubnet = &awsec2.SubnetSelection{SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED}
		}
		n.vpc = awsec2.Vpc_FromVpcAttributes(s, jsii.String("Vpc"), attrs)
		n.appSubnet = &awsec2.SubnetSelection{SubnetType: awsec2.SubnetType_PRIVATE_WITH_EGRESS}
	}

	n.fnSG = n.functionSG(s, cfg, "FunctionsSG", "regintel functions: egress to HTTPS, the database and Memgraph only")
	n.adminSG = n.functionSG(s, cfg, "MigrateSG", "regintel migrate: egress to HTTPS, the database cluster and Memgraph only")

	n.dbSG = awsec2.NewSecurityGroup(s, jsii.String("DatabaseSG"), &awsec2.SecurityGroupProps{
		Vpc:              n.vpc,
		Description:      jsii.String("regintel Aurora: ingress from the functions (or the proxy) only"),
		AllowAllOutbound: jsii.Bool(false),
	})
	addMemgraphPeering(s, cfg, n)
	return n
}

// functionSG is a security group for functions with explicit egress only:
// HTTPS (the LLM API, official sources for enrich, and AWS APIs such as SQS,
// Secrets Manager and X-Ray through the NAT gateway) and Bolt to Memgraph.
// The database port is added by the database, per group.
func (n *network) functionSG(s awscdk.Stack, cfg Config, id, desc string) awsec2.SecurityGroup {
	sg := awsec2.NewSecurityGroup(s, jsii.String(id), &awsec2.SecurityGroupProps{
		Vpc:              n.vpc,
		Description:      jsii.String(desc),
		AllowAllOutbound: jsii.Bool(false),
	})
	sg.AddEgressRule(awsec2.Peer_AnyIpv4(), awsec2.Port_Tcp(jsii.Number(443)),
		jsii.String("HTTPS to the LLM API, official sources and AWS APIs"), jsii.Bool(false))
	if cfg.MemgraphURI == "" {
		return sg
	}
	port := awsec2.Port_Tcp(jsii.Number(cfg.MemgraphPort))
	bolt := jsii.String(fmt.Sprintf("Bolt to Memgraph (%d)", cfg.MemgraphPort))
	if cfg.MemgraphCidr != "" {
		sg.AddEgressRule(awsec2.Peer_Ipv4(jsii.String(boltEgressCidr(cfg))), port, bolt, jsii.Bool(false))
	} else {
		sg.AddEgressRule(n.memgraphSG(s, cfg), port, bolt, jsii.Bool(false))
	}
	return sg
}

func (n *network) memgraphSG(s awscdk.Stack, cfg Config) awsec2.ISecurityGroup {
	if n.mgSG == nil {
		// Immutable: the Memgraph side's ingress belongs to whoever runs Memgraph.
		n.mgSG = awsec2.SecurityGroup_FromSecurityGroupId(s, jsii.String("MemgraphSG"), jsii.String(cfg.MemgraphSecurityGroupID),
			&awsec2.SecurityGroupImportOptions{Mutable: jsii.Bool(false)})
	}
	return n.mgSG
}

// addMemgraphPeering peers with the Memgraph VPC when asked, and routes its
// CIDR from the functions' subnets over the peering.
func addMemgraphPeering(s awscdk.Stack, cfg Config, n *network) {
	if cfg.MemgraphURI == "" || cfg.MemgraphPeerVpcID == "" {
		return
	}
	peerProps := &awsec2.CfnVPCPeeringConnectionProps{
		VpcId:     n.vpc.VpcId(),
		PeerVpcId: jsii.String(cfg.MemgraphPeerVpcID),
	}
	if cfg.MemgraphPeerOwnerID != "" {
		peerProps.PeerOwnerId = jsii.String(cfg.MemgraphPeerOwnerID)
	}
	if cfg.MemgraphPeerRegion != "" {
		peerProps.PeerRegion = jsii.String(cfg.MemgraphPeerRegion)
	}
	if cfg.MemgraphPeerRoleArn != "" {
		peerProps.PeerRoleArn = jsii.String(cfg.MemgraphPeerRoleArn)
	}
	peering := awsec2.NewCfnVPCPeeringConnection(s, jsii.String("MemgraphPeering"), peerProps)
	for i, sub := range *n.vpc.SelectSubnets(n.appSubnet).Subnets {
		route := awsec2.NewCfnRoute(s, jsii.String(fmt.Sprintf("MemgraphRoute%d", i)), &awsec2.CfnRouteProps{
			RouteTableId:           sub.RouteTable().RouteTableId(),
			DestinationCidrBlock:   jsii.String(cfg.MemgraphCidr),
			VpcPeeringConnectionId: peering.Ref(),
		})
		n.mgRoutes = append(n.mgRoutes, route)
	}
}

// boltEgressCidr narrows Bolt egress to the Memgraph host when the URI
// names it by address; a DNS name can move, so it gets memgraphCidr.
func boltEgressCidr(cfg Config) string {
	if ip := net.ParseIP(cfg.MemgraphHost); ip != nil && ip.To4() != nil {
		return ip.String() + "/32"
	}
	return cfg.MemgraphCidr
}

func removalPolicy(cfg Config) awscdk.RemovalPolicy {
	if cfg.IsProd() {
		return awscdk.RemovalPolicy_RETAIN
	}
	return awscdk.RemovalPolicy_DESTROY
}
