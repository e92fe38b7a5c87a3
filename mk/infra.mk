# Infrastructure: the CDK app in infra/ (its own Go module). Included by the
# root Makefile. See infra/README.md for prerequisites and context keys.
#
#   make synth                      build the bootstraps, synthesize cdk.out (offline, no credentials)
#   make synth STAGE=prod CDK_ARGS="-c rdsProxy=true"
#   make deploy STAGE=dev           synthesize into $(CDK_OUT), then cdk deploy from it (needs AWS credentials)
#   make graph-setup STAGE=prod     the graph step, outside the deploy (needs AWS credentials)
#   make sam-invoke FN=chat EVENT=events/chat-turn.json [ENV_VARS=env.json]
#   make lint-infra                 cdk-nag (fails synth on findings) + cfn-lint on every template

STAGE ?= dev
CDK_OUT ?= cdk.out
CDK_ARGS ?=
# A directory of <function>/bootstrap to synthesize against instead of
# `make build` output (scripts/test.d/infra.sh passes placeholders).
INFRA_BUILD_DIR ?=
CDK := infra/_cdkcli/node_modules/.bin/cdk
# cfn-lint and the SAM CLI, pinned, in a virtualenv under .testenv/ (git-ignored).
# Update the pins deliberately: a new cfn-lint knows new deprecations (W3690).
CFN_LINT_VERSION := 1.58.0
SAM_CLI_VERSION := 1.170.0
INFRA_VENV ?= .testenv/infra-venv
CFN_LINT ?= $(INFRA_VENV)/bin/cfn-lint
# checkov, pinned, in a virtualenv of its own (its dependencies and the SAM
# CLI's do not share one). --skip-download: offline, no policy download.
CHECKOV_VERSION := 3.3.30
CHECKOV_VENV ?= .testenv/checkov-venv
CHECKOV ?= $(CHECKOV_VENV)/bin/checkov
# The reviewed findings: one check id per line, with the reason after it.
CHECKOV_SKIP = $(shell sed -e 's/\#.*//' infra/checkov-baseline.txt | awk 'NF {print $$1}' | paste -sd, -)
# W3005: CDK writes DependsOn next to Ref/GetAtt for the same resource; harmless.
# W3690 (engine version that can no longer create clusters) always counts.
CFN_LINT_ARGS ?= --ignore-checks W3005 --mandatory-checks W3690

# Offline and quiet: no telemetry, no notices fetch, no instance-metadata
# credential probe, no Node end-of-life banner from jsii.
CDK_ENV := CDK_DISABLE_CLI_TELEMETRY=true AWS_EC2_METADATA_DISABLED=true JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1
CDK_FLAGS := --no-notices --ci -c stage=$(STAGE) $(if $(INFRA_BUILD_DIR),-c buildDir=$(abspath $(INFRA_BUILD_DIR)))

# The context of the second template `make lint-infra` checks: prod with
# every optional feature on, so nag and cfn-lint see all resources.
LINT_PROD_CONTEXT := -c rdsProxy=true -c memgraphUri=bolt://10.50.1.10:7687 -c memgraphCidr=10.50.0.0/16 \
  -c memgraphPeerVpcId=vpc-0123456789abcdef0 -c memgraphSecretArn=arn:aws:secretsmanager:eu-west-1:123456789012:secret:regintel/memgraph-AbCdEf -c chatAuthType=AWS_IAM -c corsOrigins=https://app.example.com \
  -c jwtJwksUrl=https://id.example.com/.well-known/jwks.json -c jwtIssuer=https://id.example.com/ -c jwtAudience=regintel \
  -c alarmTopicArn=arn:aws:sns:eu-west-1:123456789012:regintel-alarms \
  -c tracing=true -c otelCollectorLayerArn=arn:aws:lambda:eu-west-1:901920570463:layer:aws-otel-collector-arm64-ver-0-117-0:1

# FN=resolve-concepts -> ResolveConceptsFunction (the stack's stable logical ids)
fn_logical_id = $(shell printf '%s' '$(1)' | sed -E 's/(^|[-_])([a-z])/\U\2/g')Function

.PHONY: cdk-cli infra-tools checkov-tool cfn-lint-args synth deploy diff destroy cdk-bootstrap graph-setup deploy-guide-check sam-invoke lint-infra test-infra

cdk-cli: $(CDK) ## install the pinned aws-cdk CLI into infra/_cdkcli/node_modules

$(CDK): infra/_cdkcli/package.json
	cd infra/_cdkcli && npm install --no-save
	@touch $@

infra-tools: $(INFRA_VENV)/.installed-$(CFN_LINT_VERSION)-$(SAM_CLI_VERSION) ## install the pinned cfn-lint and SAM CLI into .testenv/

$(INFRA_VENV)/.installed-$(CFN_LINT_VERSION)-$(SAM_CLI_VERSION):
	test -x $(INFRA_VENV)/bin/pip || python3 -m venv $(INFRA_VENV)
	$(INFRA_VENV)/bin/pip install --quiet 'cfn-lint==$(CFN_LINT_VERSION)' 'aws-sam-cli==$(SAM_CLI_VERSION)'
	@touch $@

checkov-tool: $(CHECKOV_VENV)/.installed-$(CHECKOV_VERSION) ## install the pinned checkov into .testenv/

$(CHECKOV_VENV)/.installed-$(CHECKOV_VERSION):
	test -x $(CHECKOV_VENV)/bin/pip || python3 -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet 'checkov==$(CHECKOV_VERSION)'
	@touch $@

cfn-lint-args:
	@echo '$(CFN_LINT_ARGS)'

# Every command that runs the app synthesizes into this one absolute folder:
# cdk.json runs the app from infra/, so a relative output folder would be
# written under infra/ and read from the root (the app refuses one). The
# CLI synthesizes before it deploys, so a deploy always uses the assembly
# of this checkout, this stage and these CDK_ARGS, never an earlier synth.
CDK_OUT_DIR = $(abspath $(CDK_OUT))
CDK_APP_FLAGS = $(CDK_FLAGS) -o $(CDK_OUT_DIR) $(CDK_ARGS)
# The function bootstraps: `make build`, unless INFRA_BUILD_DIR names others.
INFRA_BUILD = $(if $(INFRA_BUILD_DIR),,build)
# Commands that need AWS keep the instance-metadata credentials (a deploy
# from CI on EC2 or CodeBuild), unlike the offline synth.
CDK_AWS_ENV := CDK_DISABLE_CLI_TELEMETRY=true JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1

synth: $(CDK) $(INFRA_BUILD) ## synthesize the stack into cdk.out (offline; STAGE, CDK_ARGS)
	$(CDK_ENV) $(CDK) synth $(CDK_APP_FLAGS) --quiet
	@echo "synthesized $(CDK_OUT)/RegIntel-$(STAGE).template.json"

deploy: $(CDK) $(INFRA_BUILD) ## synthesize, then cdk deploy RegIntel-$(STAGE) from that assembly (AWS credentials required)
	$(CDK_AWS_ENV) $(CDK) deploy $(CDK_APP_FLAGS) --require-approval broadening RegIntel-$(STAGE)

diff: $(CDK) $(INFRA_BUILD) ## synthesize, then cdk diff against the deployed stack (AWS credentials required)
	$(CDK_AWS_ENV) $(CDK) diff $(CDK_APP_FLAGS) RegIntel-$(STAGE)

destroy: $(CDK) $(INFRA_BUILD) ## cdk destroy RegIntel-$(STAGE) (AWS credentials required; see infra/README.md, Tearing down)
	$(CDK_AWS_ENV) $(CDK) destroy $(CDK_APP_FLAGS) RegIntel-$(STAGE)

# The stage file's account and region: bootstrap targets exactly them.
stage_target = $(shell python3 -c 'import json,sys; d=json.load(open("infra/stages/$(STAGE).json")); print("aws://%s/%s" % (d["account"], d["region"]))')

# The app synthesizes before bootstrapping, so the bootstraps must exist.
cdk-bootstrap: $(CDK) $(INFRA_BUILD) ## one-time CDK bootstrap of the stage's account/region (AWS credentials required)
	$(CDK_AWS_ENV) $(CDK) bootstrap $(CDK_APP_FLAGS) $(stage_target)

stage_region = $(shell python3 -c 'import json; print(json.load(open("infra/stages/$(STAGE).json"))["region"])')

# The graph step, outside the deploy so that Memgraph being unreachable can
# never fail or roll back a deploy. Idempotent: run it once the Memgraph
# side's routes exist, and after a deploy that changes the schema or dataset.
graph-setup: ## invoke RegIntel-$(STAGE)'s graph step (schema + shipped dataset) and fail with it (AWS credentials, aws CLI)
	bash scripts/graph-setup.sh $(STAGE) $(stage_region) $(CDK_OUT_DIR)

deploy-guide-check: ## run every deploy-day step of infra/README.md from a fresh copy of HEAD; credential steps must stop for credentials only, after synthesizing
	cd infra && DEPLOY_GUIDE_CHECK=1 go test -v -count=1 -timeout 90m -run "TestDeployGuideRunsFromAFreshClone|TestGuideOrderDeploysTheStageJustSynthesized" .

# The sample event of each function, and the overrides `sam local` applies.
SAM_EVENT_chat := events/chat-turn.json
SAM_EVENT_resolve-concepts := events/sqs-concepts.json
SAM_EVENT_enrich := events/sqs-enrichment.json
SAM_EVENT_migrate := events/migrate.json
SAM_EVENT_sweep := events/sweep-schedule.json
ENV_VARS ?= events/sam-env.json
SAM ?= $(INFRA_VENV)/bin/sam

sam-invoke: synth infra-tools ## sam local invoke FN (EVENT, ENV_VARS) against the synthesized template (needs Docker)
	@test -n "$(FN)" || { echo "usage: make sam-invoke FN=chat [EVENT=events/chat-turn.json] [ENV_VARS=events/sam-env.json]"; exit 2; }
	@test -f "$(or $(EVENT),$(SAM_EVENT_$(FN)))" || { echo "EVENT=$(EVENT): no such file"; exit 2; }
	$(SAM) local invoke $(call fn_logical_id,$(FN)) -t $(CDK_OUT)/RegIntel-$(STAGE).template.json \
	  -e $(or $(EVENT),$(SAM_EVENT_$(FN))) --env-vars $(ENV_VARS)

lint-infra: $(CDK) infra-tools checkov-tool ## cdk-nag (via synth, dev and a full prod variant), cfn-lint and checkov on every template
	$(MAKE) --no-print-directory synth CDK_OUT=$(CDK_OUT)/lint-dev CDK_ARGS="$(CDK_ARGS)"
	$(MAKE) --no-print-directory synth STAGE=prod CDK_OUT=$(CDK_OUT)/lint-prod CDK_ARGS='$(LINT_PROD_CONTEXT) $(CDK_ARGS)'
	$(CFN_LINT) $(CFN_LINT_ARGS) -- $(CDK_OUT)/lint-dev/*.template.json $(CDK_OUT)/lint-prod/*.template.json
	$(CHECKOV) --skip-download --quiet --compact --framework cloudformation --skip-check '$(CHECKOV_SKIP)' \
	  $$(for t in $(CDK_OUT)/lint-dev/*.template.json $(CDK_OUT)/lint-prod/*.template.json; do printf -- '-f %s ' "$$t"; done)
	@echo "lint-infra: cdk-nag, cfn-lint and checkov clean"

test-infra: ## infra Go tests, synth and lint with placeholder bootstraps (what `make test` runs)
	@bash scripts/test.d/infra.sh
