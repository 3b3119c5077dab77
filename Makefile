# skillstore — build, test, lint, benchmark, fuzz and demo targets.
GO        ?= go
BIN       ?= bin/skillstore
PKGS      := ./...
FUZZTIME  ?= 10s
BENCHTIME ?= 1x
STATICCHECK_VERSION ?= v0.8.2

.PHONY: all build test cross test-windows release lint bench bench-scale bench-calm fuzz demo update clean e2e-claude e2e-codex e2e-copilot e2e-gemini e2e-agents e2e-mcp attack audit-corpus docs man

all: build

## build: compile the skillstore binary into bin/. urfave_cli_no_docs leaves
## out urfave/cli's Markdown/man generators (unused), whose Markdown renderer's
## package initialisers were most of the start-up time of every command.
GOTAGS ?= urfave_cli_no_docs
build:
	$(GO) build -tags '$(GOTAGS)' -o $(BIN) ./cmd/skillstore

## test: make cross, go vet, then the whole test suite (what CI runs). The race
## detector runs on every package but two: the end-to-end scenarios of
## cmd/skillstore, which start a thousand skillstore processes (a
## race-instrumented process is several times slower to start and run), and
## merge/diff3, a line merge with no goroutine checked against git on
## thousands of cases. cmd/skillstore's tests of concurrency within one
## process (RACE_CMD_TESTS: the MCP and review servers under load, gc beside
## readers and writers, signals, the store lock) run under it too. The
## concurrent code the scenarios reach lives in store/, reload/ and
## internal/, whose own tests run under the race detector.
## GORACE=atexit_sleep_ms=0: the race runtime otherwise sleeps 1s as each
## process it instruments exits.
NORACE_PKGS    := cmd/skillstore merge/diff3
RACE_CMD_TESTS := ^(TestMCP|TestSkillsExtension|TestGC|TestInterrupt|TestSIGTERM|TestStoreConcurrent|TestStoreLock|TestWriterNotStarved|TestNoOpSync|TestSyncDoesNotHang)
test: cross
	$(GO) vet $(PKGS)
	GORACE="atexit_sleep_ms=0 $(GORACE)" $(GO) test -race -timeout 15m $$($(GO) list $(PKGS) | grep -v $(foreach p,$(NORACE_PKGS),-e '/$(p)$$'))
	$(GO) test -timeout 15m -skip '$(RACE_CMD_TESTS)' $(addprefix ./,$(NORACE_PKGS))
	GORACE="atexit_sleep_ms=0 $(GORACE)" $(GO) test -race -timeout 15m -run '$(RACE_CMD_TESTS)' ./cmd/skillstore

## cross: vet (which type-checks every package and its tests) for one
## platform of each other operating system a release ships (our code differs
## by operating system only: no file is for one architecture), and compile
## the Windows test binaries of the lock, atomic-file, safe-folder and name
## packages (part of make test; needs no tool but Go). `make release`
## builds every platform; CROSS_TARGETS="..." vets others.
CROSS_TARGETS     ?= windows/amd64 darwin/arm64
WINDOWS_TEST_PKGS ?= ./internal/lockfile ./internal/atomicfile ./internal/safedir ./internal/skillfs
cross:
	@set -e; for t in $(CROSS_TARGETS); do \
	  echo "cross $$t: vet"; \
	  GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet -tags '$(GOTAGS)' $(PKGS); \
	done; \
	echo "cross windows/amd64: test binaries of $(WINDOWS_TEST_PKGS)"; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for p in $(WINDOWS_TEST_PKGS); do \
	  GOOS=windows GOARCH=amd64 $(GO) test -c -o "$$tmp/$$(basename $$p).test.exe" $$p; \
	done

## test-windows: run the Windows test binaries of the lock, atomic-file,
## safe-folder and name packages, and export's Windows tests, under wine
## (installed from Debian's packages when absent, with apt-get: needs root
## or sudo), printing how many passed, failed and were skipped, and why.
## Not part of make test. testdata/wine/test-windows.sh says what it
## adds to wine 8 for Go to run there.
test-windows:
	GO=$(GO) sh testdata/wine/test-windows.sh

## release: the skillstore binary for each platform, with the version (git
## describe) and commit embedded (skillstore --version prints them), into
## dist/, with their SHA-256 sums. VERSION=v1.2.0 to name it yourself.
RELEASE_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
VERSION         ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT          ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo +dirty)
release:
	@rm -rf dist && mkdir -p dist
	@set -e; for t in $(RELEASE_TARGETS); do \
	  os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  out=dist/skillstore-$(VERSION)-$$os-$$arch$$ext; echo "$$out"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -tags '$(GOTAGS)' \
	    -ldflags "-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $$out ./cmd/skillstore; \
	done
	@cd dist && sha256sum skillstore-* > SHA256SUMS && cat SHA256SUMS

## lint: staticcheck, gofmt and go mod tidy cleanliness
lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	@tmp=$$(mktemp -d); cp go.mod go.sum $$tmp/; \
	$(GO) mod tidy; \
	if ! cmp -s go.mod $$tmp/go.mod || ! cmp -s go.sum $$tmp/go.sum; then \
	  echo "go mod tidy changes go.mod/go.sum: run it and commit the result"; \
	  cp $$tmp/go.mod $$tmp/go.sum .; rm -rf $$tmp; exit 1; fi; rm -rf $$tmp

## attack: replay every hostile input in testdata/attack against the binary
## and print how many held, per class (also part of make test)
attack:
	@out=$$(mktemp); status=0; \
	$(GO) test ./cmd/skillstore -run '^TestAttacks$$' -count=1 -v >$$out 2>&1 || status=$$?; \
	if [ $$status -ne 0 ]; then grep -v '^=== ' $$out; fi; \
	sed -n '/^attacks:/,/^[-o]/p' $$out | grep -v '^--- \|^ok'; rm -f $$out; exit $$status

## audit-corpus: rate the safety corpus (testdata/safety-corpus: attack
## shapes and benign look-alikes written for this project) and print how
## many malicious skills are refused or held and how many benign ones stay
## below high, one line per skill (also part of make test)
audit-corpus:
	@$(GO) test ./store/safety -run '^TestCorpus$$' -count=1 -v | grep -v '^=== \|^--- \|^PASS\|^ok'

## bench: every benchmark, printing skillstore's figures beside their references
## (among them BenchmarkMCPHTTPLoad10k: 200 HTTP clients of `skillstore mcp --http`
## on 10,000 skills, requests/s, p50/p99, errors and the server's peak memory;
## BenchmarkMergeCorpus: merge quality beside git merge-file on the committed
## histories, and on the git clones SKILLSTORE_MERGE_CORPORA lists, like PATH;
## BenchmarkUIPages1k: each page of `skillstore ui` on 1,000 skills, best and median
## answer time beside its commands' own --json run, target < 100 ms)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -timeout 60m $(PKGS)

## bench-scale: one-skill commands, list, import, export, gc and start-up on
## stores of 100, 1k, 10k and 50k synthetic skills, each beside its git
## reference (cp -a and rsync -a for export), with
## peak memory and growth between sizes; then the calm works (bench-calm).
## The stores are generated once under
## BENCH_CACHE. BENCH_SIZES=100,1000,10000 leaves out 50k (slow to generate);
## BENCH_OLD=path/to/skillstore adds an older binary to compare with.
BENCH_SIZES ?= 100,1000,10000,50000
BENCH_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillstore-bench
BENCH_REPS  ?= 5
BENCH_CALM  ?= 120
bench-scale: build
	$(GO) run ./cmd/benchscale -bin $(BIN) -cache $(BENCH_CACHE) -sizes $(BENCH_SIZES) -reps $(BENCH_REPS) -calm $(BENCH_CALM) $(if $(BENCH_OLD),-old-bin $(BENCH_OLD))

## bench-calm: verify beside git fsck --strict, a no-op sync beside git
## fetch --multiple --jobs=8 of the same sources, a no-op export and doctor,
## on a store of BENCH_CALM plugins (3 skills each) from local git
## repositories, and how often the no-op sync took the exclusive lock.
bench-calm: build
	$(GO) run ./cmd/benchscale -bin $(BIN) -cache $(BENCH_CACHE) -sizes '' -reps $(BENCH_REPS) -calm $(BENCH_CALM)

## fuzz: a short bounded run of every fuzz target (FUZZTIME each)
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$target"; \
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## demo: a store in a temp dir, the bundled example plugin, a real sync
demo: build
	@bash testdata/demo/demo.sh $(abspath $(BIN))

## e2e-claude: install Claude Code's CLI (npm package @anthropic-ai/claude-code,
## CLAUDE_CODE_VERSION, default latest) into a cache folder and run the test that
## has it validate, add and install an exported marketplace, and the test that
## registers `skillstore mcp` with `claude mcp add` and has `claude mcp list`
## start it and report it connected. The CLI runs with
## HOME and CLAUDE_CONFIG_DIR in a temp folder, no login, no credentials; the
## only network use is npm's download. `make test` runs the same test when
## `claude` is on PATH, and skips it otherwise.
CLAUDE_CODE_VERSION ?= latest
CLAUDE_E2E_DIR      ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillstore-e2e/claude
e2e-claude:
	@command -v npm >/dev/null || { echo "e2e-claude needs node and npm (e.g. apt-get install nodejs npm)"; exit 1; }
	npm install --no-save --no-audit --no-fund --prefix "$(CLAUDE_E2E_DIR)" @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)
	PATH="$(CLAUDE_E2E_DIR)/node_modules/.bin:$$PATH" $(GO) test ./cmd/skillstore -run '^TestClaudeCode' -count=1 -v

## e2e-codex: install Codex's CLI (npm package @openai/codex, CODEX_VERSION,
## default latest) into a cache folder and run the test that exports skills
## into a temp home's ~/.agents/skills and has 'codex debug prompt-input' (no
## login) list them, comparing its lines with skillstore's measure of the list.
## It also runs the command `skillstore mcp --print-config codex` suggests and
## compares what Codex writes into its config.toml with the printed snippet,
## and has 'codex plugin marketplace add' and 'codex plugin add' install a
## codex-marketplace target's plugin.
## The CLI runs with HOME and CODEX_HOME in a temp folder and none of the
## caller's OPENAI_ or CODEX_ variables; the only network use is npm's
## download. `make test` runs the same test when `codex` is on PATH, and skips
## it otherwise.
CODEX_VERSION ?= latest
CODEX_E2E_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillstore-e2e/codex
e2e-codex:
	@command -v npm >/dev/null || { echo "e2e-codex needs node and npm (e.g. apt-get install nodejs npm)"; exit 1; }
	npm install --no-save --no-audit --no-fund --prefix "$(CODEX_E2E_DIR)" @openai/codex@$(CODEX_VERSION)
	PATH="$(CODEX_E2E_DIR)/node_modules/.bin:$$PATH" $(GO) test ./cmd/skillstore -run '^TestCodex' -count=1 -v

## e2e-copilot: install GitHub Copilot's CLI (npm package @github/copilot,
## COPILOT_VERSION, default latest) into a cache folder and run the test
## that has it add a copilot-marketplace target, browse it, install its
## plugins and list the exported versions. The CLI runs with HOME and
## COPILOT_HOME in a temp folder and none of the caller's COPILOT_, GH_ or
## GITHUB_ variables: no login, no credentials; the only network use is
## npm's download. `make test` runs it when `copilot` is on PATH.
COPILOT_VERSION ?= latest
COPILOT_E2E_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillstore-e2e/copilot
e2e-copilot:
	@command -v npm >/dev/null || { echo "e2e-copilot needs node and npm (e.g. apt-get install nodejs npm)"; exit 1; }
	npm install --no-save --no-audit --no-fund --prefix "$(COPILOT_E2E_DIR)" @github/copilot@$(COPILOT_VERSION)
	PATH="$(COPILOT_E2E_DIR)/node_modules/.bin:$$PATH" $(GO) test ./cmd/skillstore -run '^TestCopilot' -count=1 -v

## e2e-gemini: install Gemini CLI (npm package @google/gemini-cli,
## GEMINI_CLI_VERSION, default latest) into a cache folder and run the test
## that has 'gemini extensions validate' check each extension of a
## gemini-extensions target, install it and list its skills and context
## file. HOME in a temp folder, none of the caller's GEMINI_ or GOOGLE_
## variables, no login. `make test` runs it when `gemini` is on PATH.
GEMINI_CLI_VERSION ?= latest
GEMINI_E2E_DIR     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillstore-e2e/gemini
e2e-gemini:
	@command -v npm >/dev/null || { echo "e2e-gemini needs node and npm (e.g. apt-get install nodejs npm)"; exit 1; }
	npm install --no-save --no-audit --no-fund --prefix "$(GEMINI_E2E_DIR)" @google/gemini-cli@$(GEMINI_CLI_VERSION)
	PATH="$(GEMINI_E2E_DIR)/node_modules/.bin:$$PATH" $(GO) test ./cmd/skillstore -run '^TestGemini' -count=1 -v

## e2e-agents: every agent's CLI above (Claude Code, Codex, Copilot, Gemini).
e2e-agents: e2e-claude e2e-codex e2e-copilot e2e-gemini

## e2e-mcp: install MCP Inspector's CLI (npm package @modelcontextprotocol/inspector,
## INSPECTOR_VERSION, 2.12 or later) into a cache folder and run the test that has
## it check `skillstore mcp` as a host of MCP's Skills extension does: its SEP-2640
## conformance and digest checks (--method skills/list --verify --require-digests,
## in the legacy and the 2026-07-28 protocol; skills/get of a published and a
## pinned version), a directory read, and its load test of load_skill (--load).
## The CLI runs with HOME in a temp folder, no account; the only network use is
## npm's download. `make test` runs the same test when `mcp-inspector` is on PATH,
## and skips it otherwise.
INSPECTOR_VERSION ?= 2.12.0
INSPECTOR_E2E_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillstore-e2e/inspector
e2e-mcp:
	@command -v npm >/dev/null || { echo "e2e-mcp needs node and npm (e.g. apt-get install nodejs npm)"; exit 1; }
	npm install --no-save --no-audit --no-fund --prefix "$(INSPECTOR_E2E_DIR)" @modelcontextprotocol/inspector@$(INSPECTOR_VERSION)
	PATH="$(INSPECTOR_E2E_DIR)/node_modules/.bin:$$PATH" $(GO) test ./cmd/skillstore -run '^TestMCPInspector' -count=1 -v

## docs: regenerate the command reference (docs/reference/*.md) from the
## commands' own help. TestReferenceDocs (part of make test) fails, naming
## the command and flag, when a page differs from the help; this rewrites
## the pages (and removes those of commands that no longer exist).
docs:
	$(GO) test ./cmd/skillstore -run '^TestReferenceDocs$$' -count=1 -update

## man: man pages (section 1, one per command: skillstore-plugin-add.1 ...)
## generated from the same help, into MANDIR (default man/; not tracked).
## Read one with: man -l man/skillstore-sync.1
MANDIR ?= man
man:
	$(GO) test ./cmd/skillstore -run '^TestManPages$$' -count=1 -args -man=$(abspath $(MANDIR))

## update: rewrite golden files (testscript scenarios and merge cases) and
## the command reference
update:
	$(GO) test ./cmd/skillstore -update
	$(GO) test ./merge -update

clean:
	rm -rf bin dist man
