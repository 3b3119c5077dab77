# skillstore — build, test, lint, benchmark, fuzz and demo targets.
GO        ?= go
BIN       ?= bin/skillstore
PKGS      := ./...
FUZZTIME  ?= 10s
BENCHTIME ?= 1x
STATICCHECK_VERSION ?= v0.8.2

.PHONY: all build test lint bench bench-scale fuzz demo update clean e2e-claude attack

all: build

## build: compile the skillstore binary into bin/. urfave_cli_no_docs leaves
## out urfave/cli's Markdown/man generators (unused), whose Markdown renderer's
## package initialisers were most of the start-up time of every command.
GOTAGS ?= urfave_cli_no_docs
build:
	$(GO) build -tags '$(GOTAGS)' -o $(BIN) ./cmd/skillstore

## test: go vet plus the whole test suite with the race detector (what CI runs).
## GORACE=atexit_sleep_ms=0: the race runtime otherwise sleeps 1s as each of the
## hundreds of processes that the end-to-end tests start exits.
test:
	$(GO) vet $(PKGS)
	GORACE="atexit_sleep_ms=0 $(GORACE)" $(GO) test -race -timeout 15m $(PKGS)

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

## bench: every benchmark, printing skillstore's figures beside their references
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -timeout 60m $(PKGS)

## bench-scale: one-skill commands, list, import, export, gc and start-up on
## stores of 100, 1k, 10k and 50k synthetic skills, each beside its git
## reference (cp -a and rsync -a for export), with
## peak memory and growth between sizes. The stores are generated once under
## BENCH_CACHE. BENCH_SIZES=100,1000,10000 leaves out 50k (slow to generate);
## BENCH_OLD=path/to/skillstore adds an older binary to compare with.
BENCH_SIZES ?= 100,1000,10000,50000
BENCH_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillstore-bench
BENCH_REPS  ?= 5
bench-scale: build
	$(GO) run ./cmd/benchscale -bin $(BIN) -cache $(BENCH_CACHE) -sizes $(BENCH_SIZES) -reps $(BENCH_REPS) $(if $(BENCH_OLD),-old-bin $(BENCH_OLD))

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
## has it validate, add and install an exported marketplace. The CLI runs with
## HOME and CLAUDE_CONFIG_DIR in a temp folder, no login, no credentials; the
## only network use is npm's download. `make test` runs the same test when
## `claude` is on PATH, and skips it otherwise.
CLAUDE_CODE_VERSION ?= latest
CLAUDE_E2E_DIR      ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillstore-e2e/claude
e2e-claude:
	@command -v npm >/dev/null || { echo "e2e-claude needs node and npm (e.g. apt-get install nodejs npm)"; exit 1; }
	npm install --no-save --no-audit --no-fund --prefix "$(CLAUDE_E2E_DIR)" @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)
	PATH="$(CLAUDE_E2E_DIR)/node_modules/.bin:$$PATH" $(GO) test ./cmd/skillstore -run '^TestClaudeCodeValidatesExport$$' -count=1 -v

## update: rewrite golden files (testscript scenarios and merge cases)
update:
	$(GO) test ./cmd/skillstore -update
	$(GO) test ./merge -update

clean:
	rm -rf bin
