# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Tests: included by the top-level Makefile.
#
#   make check        install what is missing, build, run every test
#   make unit         unit tests only (no root)
#   make integration  integration tests only (root, real BPF)

UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
WORKLOAD	:= $(OUTPUT)/tests/workload
FIDELITY	:= $(OUTPUT)/tests/fidelity
# t_kernels.py boots other kernels under qemu: once, in its own pass.
KERNEL_TESTS	:= tests/integration/t_kernels.py tests/integration/t_service.py
INTEG_TESTS	:= $(filter-out $(KERNEL_TESTS),$(sort $(wildcard tests/integration/t_*.py)))
TEST_LIBS	:= $(shell $(PKG_CONFIG) --libs cmocka jansson 2>/dev/null || echo -lcmocka -ljansson)
PROVE		?= prove -f -o
# Every prove run is a pass with a wall-clock budget (tests/run-pass):
# tests/run-test runs each file in a cgroup of its own and, once the budget
# is spent, kills all it started and bails out naming the file. `timeout` is
# the backstop: its SIGTERM makes run-test and the tests empty their boxes,
# SIGKILL follows. Each pass ends with its wall time and its slowest files.
PASS_BUDGET	?= 900
RUN_PASS	= PROVE="$(PROVE)" $(CURDIR)/tests/run-pass $(1) $(PASS_BUDGET)

$(OUTPUT)/tests/test_%: tests/unit/test_%.c $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(ALL_LDFLAGS) $(TEST_LIBS) $(LIBS) -o $@

# The workloads are test tools, not the product: never sanitized (ASan's
# leak checker forks at exit, which the tests would see).
TOOL_CFLAGS	:= $(filter-out $(SAN_FLAGS),$(ALL_CFLAGS))

$(WORKLOAD): tests/workload.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(TOOL_CFLAGS) $< -lpthread -lutil -o $@

$(FIDELITY): tests/fidelity.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(TOOL_CFLAGS) $< -o $@

.PHONY: test-bins
test-bins: $(BIN) $(UNIT_BINS) $(WORKLOAD) $(FIDELITY)

unit: $(UNIT_BINS)
	$(Q)CMOCKA_MESSAGE_OUTPUT=TAP $(call RUN_PASS,unit) $(UNIT_BINS)

integration: test-bins
	$(Q)PGRPTRACE=$(CURDIR)/$(BIN) WORKLOAD=$(CURDIR)/$(WORKLOAD) \
		FIDELITY=$(CURDIR)/$(FIDELITY) \
		$(call RUN_PASS,integration) $(INTEG_TESTS)

TEST_ENV	= CMOCKA_MESSAGE_OUTPUT=TAP PGRPTRACE=$(CURDIR)/$(BIN) \
		  WORKLOAD=$(CURDIR)/$(WORKLOAD) FIDELITY=$(CURDIR)/$(FIDELITY) \
		  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 PGT_SANITIZED=$(SANITIZE)

# Each host pass's records leave the fields they had here, and
# tests/check-fields reads them against the schema and docs/events.md once
# the passes are done (make check, make check-quick). Not the kernels pass:
# its guests' records stay in the guests.
FIELDS_DIR	:= $(CURDIR)/.output/fields

check-fields:
	$(Q)tests/check-fields $(FIELDS_DIR)

# The host passes' environment: TEST_ENV, and the fields kept.
HOST_ENV	= PGT_FIELDS=$(FIELDS_DIR) $(TEST_ENV)

# The README's examples and screens, run anew and pasted in (root; review
# the diff). t_readme.py and t_tui.py check that they stay true.
readme-examples: test-bins
	$(Q)PGRPTRACE=$(CURDIR)/$(BIN) WORKLOAD=$(CURDIR)/$(WORKLOAD) \
		python3 tests/integration/readme.py --write
	$(Q)tests/tui-screens.sh
	$(Q)PGRPTRACE=$(CURDIR)/$(BIN) python3 tests/integration/page_shot.py

# The README's picture of an --html page (docs/html-page.png), from a real login.
.PHONY: screenshot
screenshot: $(BIN)
	$(Q)PGRPTRACE=$(CURDIR)/$(BIN) python3 tests/integration/page_shot.py

# The sanitized build: every test again, under ASan and UBSan.
check-san:
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 test-bins
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 prove-all

prove-all:
	$(Q)$(HOST_ENV) $(call RUN_PASS,$(if $(filter 1,$(SANITIZE)),sanitized,plain)) \
		$(UNIT_BINS) $(INTEG_TESTS)

# Every hook level that loads here, other than the default (which every
# other pass uses), runs the end-to-end tests again (fidelity with 10 seeds).
# t_levels.py reports a level this kernel refuses as skipped, with the reason.
LEVEL_TESTS	:= $(addprefix tests/integration/,t_lifecycle.py t_exec.py t_groups.py t_model.py \
		   t_signals.py t_escapes.py t_pty.py t_fidelity.py t_death.py t_logout.py)

check-levels: test-bins
	$(Q)$(CURDIR)/$(BIN) --check --json > $(OUTPUT)/check.json
	$(Q)levels=$$(python3 -c 'import json, sys; c = json.load(sys.stdin); \
		print(" ".join(l["name"] for l in c["levels"] if l["ok"] and l["name"] != c["level"]))' \
		< $(OUTPUT)/check.json) || exit 1; \
	echo "  LEVELS   besides $$(python3 -c 'import json, sys; print(json.load(sys.stdin)["level"])' \
		< $(OUTPUT)/check.json): $${levels:-none}"; \
	for level in $$levels; do \
		echo "  LEVEL    $$level"; \
		PGRPTRACE_HOOKS=$$level FIDELITY_SEEDS=10 $(HOST_ENV) \
			$(call RUN_PASS,$$level) $(LEVEL_TESTS) || exit 1; \
	done
	@echo "  LEVEL    default, with the fallbacks of kernels before 5.17"
	$(Q)PGRPTRACE_TEST_NO_FEATURES=all FIDELITY_SEEDS=10 $(HOST_ENV) \
		$(call RUN_PASS,fallbacks) $(LEVEL_TESTS)

# Debian's 5.10, 6.1 and 6.12 cloud kernels, each booted under qemu: fetched
# once into PGRPTRACE_KERNEL_CACHE (/var/cache/pgrptrace-kernels).
# Each boots twice: --check and fidelity at every level on an initramfs, then
# the end-to-end suite on a root disk (GUEST_SUITE=0 leaves that out). The
# three run at once (PGT_GUESTS caps them). Then t_service: the installed
# unit under systemd in a guest of 6.1. make check runs this pass niced,
# beside the others (tests/run-check). Its own budget.
check-kernels: PASS_BUDGET = 3300
check-kernels: test-bins
	$(Q)test -e $(DEB_FILE) -a $(DEB_FILE) -nt $(BIN) || $(MAKE) --no-print-directory deb
	$(Q)$(TEST_ENV) $(call RUN_PASS,kernels) $(KERNEL_TESTS)

# The packages, then tests/run-check: the plain build, the kernels pass in
# the background (its guests are busy host threads, the host's passes mostly
# wait), and in the foreground a short fuzzing run, the sanitized build's
# tests, the other hook levels and the plain build's tests. A table of every
# pass's and step's time closes the output.
check:
	$(Q)t0=$$(date +%s); $(MAKE) --no-print-directory deps-test && \
		PGT_DEPS_SECONDS=$$(( $$(date +%s) - t0 )) $(CURDIR)/tests/run-check

test: check

# The inner loop: the unit tests and the plain build's end-to-end tests, on
# this kernel only (about 5 minutes). CI runs the whole `make check`.
check-quick: deps-test
	$(Q)$(MAKE) --no-print-directory check-format
	$(Q)$(MAKE) --no-print-directory test-bins
	$(Q)rm -rf $(FIELDS_DIR)
	$(Q)$(MAKE) --no-print-directory prove-all
	$(Q)$(MAKE) --no-print-directory check-fields

# The same with a CPU hog on every vCPU (not run by CI): the tests wait for
# states, not for time, so they pass on a loaded machine too. The passes'
# budgets are doubled there (tests/run-pass), and the kernels pass is not
# niced (tests/run-check).
check-loaded:
	$(Q)tests/cpu-hogs $(MAKE) --no-print-directory check

# Logins, job control, timer signals and churn together for SOAK_SECONDS,
# the model checked against /proc between rounds (not run by CI).
SOAK_SECONDS	?= 600
soak: test-bins
	$(Q)SOAK_SECONDS=$(SOAK_SECONDS) PGRPTRACE=$(CURDIR)/$(BIN) WORKLOAD=$(CURDIR)/$(WORKLOAD) \
		FIDELITY=$(CURDIR)/$(FIDELITY) python3 tests/soak.py

# Fuzzing: libFuzzer with ASan and UBSan over decode, model and output.
FUZZ_DIR	:= $(OUTPUT)/fuzz
FUZZ_BIN	:= $(FUZZ_DIR)/fuzz_records
# Every layer below the run (user/*/): what records flow through.
FUZZ_SRCS	:= $(USER_LAYER_SRCS)
FUZZ_CFLAGS	:= -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		   -std=gnu11 -D_GNU_SOURCE -Ibpf $(USER_INC) -I$(OUTPUT) $(WARNINGS)
FUZZ_SECONDS	?= 20

$(FUZZ_BIN): tests/fuzz/fuzz_records.c $(FUZZ_SRCS) $(wildcard user/*.h user/*/*.h bpf/pgrptrace.h) \
	     $(SKEL) $(SKEL_NOFETCH)
	$(Q)mkdir -p $(FUZZ_DIR)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) tests/fuzz/fuzz_records.c $(FUZZ_SRCS) $(LIBS) -o $@

.PHONY: fuzz fuzz-short check-fields readme-examples prove-all check-levels check-kernels check-loaded check-quick soak
fuzz: $(FUZZ_BIN)
	$(Q)mkdir -p $(FUZZ_DIR)/corpus
	$(FUZZ_BIN) -max_total_time=$(or $(FUZZ_TIME),300) $(FUZZ_DIR)/corpus tests/fuzz/corpus

fuzz-short: $(FUZZ_BIN)
	$(Q)mkdir -p $(FUZZ_DIR)/corpus
	$(Q)$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		$(FUZZ_DIR)/corpus tests/fuzz/corpus 2>$(FUZZ_DIR)/log || \
		{ tail -50 $(FUZZ_DIR)/log; exit 1; }
	$(Q)grep -E 'stat::number_of_executed_units|Done' $(FUZZ_DIR)/log | sed 's/^/  FUZZ     /'

# Benchmarks: never part of the tests. `make bench` installs the observers
# (forkstat, bpftrace, auditd), runs every workload bare and under each, and
# writes the tables to stdout and into docs/performance.md.
BENCH_PKGS	:= forkstat bpftrace auditd
PGTBENCH	:= $(OUTPUT)/bench/pgtbench
BENCH_ARGS	?=

$(PGTBENCH): bench/pgtbench.c
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TOOL_CFLAGS) $< -o $@

.PHONY: bench
bench: deps
	$(Q)PKGS="$(BUILD_PKGS) $(TEST_PKGS) $(BENCH_PKGS)" tests/install-deps.sh
	$(Q)$(MAKE) --no-print-directory $(BIN) $(PGTBENCH)
	$(Q)timeout 900 bench/run.py --pgrptrace $(CURDIR)/$(BIN) --pgtbench $(CURDIR)/$(PGTBENCH) \
		--out docs/performance.md $(BENCH_ARGS)

# The hook levels' cost in a qemu guest of Debian 12's kernel (docs/performance.md,
# "Hook levels on Debian 12's kernel"): about 6 minutes. Prints the table.
.PHONY: bench-guest
bench-guest: deps-test
	$(Q)$(MAKE) --no-print-directory $(BIN) $(PGTBENCH)
	$(Q)timeout 3000 bench/guest.py --pgrptrace $(CURDIR)/$(BIN) --pgtbench $(CURDIR)/$(PGTBENCH) \
		--rounds 7 --levels tp_btf,fentry $(BENCH_ARGS)
