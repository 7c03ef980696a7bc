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
INTEG_TESTS	:= $(sort $(wildcard tests/integration/t_*.py))
TEST_LIBS	:= $(shell $(PKG_CONFIG) --libs cmocka jansson 2>/dev/null || echo -lcmocka -ljansson)
PROVE		?= prove
TEST_TIMEOUT	?= 1800

$(OUTPUT)/tests/test_%: tests/unit/test_%.c $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(ALL_LDFLAGS) $(TEST_LIBS) $(LIBS) -o $@

$(WORKLOAD): tests/workload.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< -lpthread -lutil -o $@

$(FIDELITY): tests/fidelity.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< -o $@

.PHONY: test-bins
test-bins: pgrptrace $(UNIT_BINS) $(WORKLOAD) $(FIDELITY)

unit: $(UNIT_BINS)
	$(Q)CMOCKA_MESSAGE_OUTPUT=TAP $(PROVE) $(UNIT_BINS)

integration: test-bins
	$(Q)PGRPTRACE=$(CURDIR)/pgrptrace WORKLOAD=$(CURDIR)/$(WORKLOAD) \
		FIDELITY=$(CURDIR)/$(FIDELITY) \
		timeout $(TEST_TIMEOUT) $(PROVE) $(INTEG_TESTS)

# Everything in one prove run, so that one summary line covers it all.
check: deps-test
	$(Q)$(MAKE) --no-print-directory test-bins
	$(Q)CMOCKA_MESSAGE_OUTPUT=TAP PGRPTRACE=$(CURDIR)/pgrptrace \
		WORKLOAD=$(CURDIR)/$(WORKLOAD) FIDELITY=$(CURDIR)/$(FIDELITY) \
		timeout $(TEST_TIMEOUT) $(PROVE) $(UNIT_BINS) $(INTEG_TESTS)

test: check
