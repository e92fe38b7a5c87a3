# Infrastructure: the CDK app in infra/ (its own Go module). Included by the
# root Makefile. See infra/README.md for prerequisites and context keys.
#
#   make synth                      build the bootstraps, synthesize cdk.out (offline, no credentials)
#   make synth STAGE=prod CDK_ARGS="-c rdsProxy=true"
#   make deploy STAGE=dev           cdk deploy (needs AWS credentials and a bootstrapped account)
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

.PHONY: cdk-cli infra-tools checkov-tool cfn-lint-args synth deploy diff cdk-bootstrap deploy-guide-check sam-invoke lint-infra test-infra

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

synth: $(CDK) $(if $(INFRA_BUILD_DIR),,build) ## synthesize the stack into cdk.out (offline; STAGE, CDK_ARGS)
	$(CDK_ENV) $(CDK) synth $(CDK_FLAGS) -o $(abspath $(CDK_OUT)) $(CDK_ARGS) --quiet
	@echo "synthesized $(CDK_OUT)/RegIntel-$(STAGE).template.json"

deploy: $(CDK) build ## cdk deploy RegIntel-$(STAGE) (AWS credentials required)
	CDK_DISABLE_CLI_TELEMETRY=true $(CDK) deploy --no-notices -c stage=$(STAGE) $(CDK_ARGS) --require-approval broadening RegIntel-$(STAGE)

diff: $(CDK) build ## cdk diff against the deployed stack (AWS credentials required)
	CDK_DISABLE_CLI_TELEMETRY=true $(CDK) diff --no-notices -c stage=$(STAGE) $(CDK_ARGS) RegIntel-$(STAGE)

# The stage file's account and region: bootstrap targets exactly them.
stage_target = $(shell python3 -c 'import json,sys; d=json.load(open("infra/stages/$(STAGE).json")); print("aws://%s/%s" % (d["account"], d["region"]))')

# The app synthesizes before bootstrapping, so the bootstraps must exist.
cdk-bootstrap: $(CDK) build ## one-time CDK bootstrap of the stage's account/region (AWS credentials required)
	CDK_DISABLE_CLI_TELEMETRY=true $(CDK) bootstrap --no-notices -c stage=$(STAGE) $(CDK_ARGS) $(stage_target)

deploy-guide-check: ## run infra/README.md's deploy-day commands from a fresh copy of HEAD, up to the first needing credentials
	cd infra && DEPLOY_GUIDE_CHECK=1 go test -count=1 -timeout 30m -run TestDeployGuideRunsFromAFreshClone .

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
