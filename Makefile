# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# pgrptrace: build, test, install. `make help` lists the targets.

HOST_ARCH	:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH		?= $(HOST_ARCH)

VERSION		:= 0.1

# SANITIZE=1: the same build with ASan and UBSan, in its own folder.
# DEB=1: the build `make deb` packages, with Debian's hardening flags, in
# its own folder.
# ARCH=arm64 on an x86 host: the BPF object only (`make ARCH=arm64 bpf`), in
# its own folder.
ifneq ($(ARCH),$(HOST_ARCH))
OUTPUT		:= .output-$(ARCH)
SAN_FLAGS	:=
BIN		:= $(OUTPUT)/pgrptrace
else ifeq ($(SANITIZE),1)
OUTPUT		:= .output-san
SAN_FLAGS	:= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
BIN		:= $(OUTPUT)/pgrptrace
else ifeq ($(DEB),1)
OUTPUT		:= .output-deb
SAN_FLAGS	:= $(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS) \
		   $(filter-out -g -O2,$(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all \
		   dpkg-buildflags --get CFLAGS))
LDFLAGS		+= $(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS)
BIN		:= $(OUTPUT)/pgrptrace
else
OUTPUT		:= .output
SAN_FLAGS	:=
BIN		:= pgrptrace
endif
CLANG		?= clang
BPFTOOL		?= bpftool
CC		?= gcc
PKG_CONFIG	?= pkg-config
prefix		?= /usr/local
sbindir		?= $(prefix)/sbin
mandir		?= $(prefix)/share/man
unitdir		?= $(prefix)/lib/systemd/system
bashcompdir	?= $(prefix)/share/bash-completion/completions
sysconfdir	?= /etc
DESTDIR		?=

VMLINUX_H	:= vmlinux/$(ARCH)/vmlinux.h
BPF_SRCS	:= bpf/pgrptrace.bpf.c	# includes the topic files
BPF_OBJS	:= $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_LINKED	:= $(OUTPUT)/pgrptrace.bpf.o
SKEL		:= $(OUTPUT)/pgrptrace.skel.h
# The same programs without atomic fetch-and-add, for kernels before 5.12.
BPF_NOFETCH	:= $(OUTPUT)/pgrptrace_nofetch.bpf.o
SKEL_NOFETCH	:= $(OUTPUT)/pgrptrace_nofetch.skel.h
# The same without the kfuncs and the programs that call them: it loads
# without the kernel's BTF, the second half of a split load (halves.c).
BPF_NOKFUNC	:= $(OUTPUT)/pgrptrace_nokfunc.bpf.o
SKEL_NOKFUNC	:= $(OUTPUT)/pgrptrace_nokfunc.skel.h
# User space in layers, each a folder: core (records, the model, the
# pipeline), kernel (the BPF side's loader, /proc), out (formats and
# outputs), view (the tree, the full-screen view); the run on top, in user/.
USER_LAYERS	:= core kernel out view
USER_LAYER_SRCS	:= $(foreach l,$(USER_LAYERS),$(wildcard user/$(l)/*.c))
USER_SRCS	:= $(wildcard user/*.c) $(USER_LAYER_SRCS)
USER_OBJS	:= $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS))
LIB_OBJS	:= $(filter-out $(OUTPUT)/user/main.o,$(USER_OBJS))
USER_INC	:= -Iuser $(foreach l,$(USER_LAYERS),-Iuser/$(l))

WARNINGS	:= -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes \
		   -Wstrict-prototypes -Wundef -Wno-unused-parameter
CFLAGS		?= -g -O2
ALL_CFLAGS	:= $(CFLAGS) $(SAN_FLAGS) $(WARNINGS) -std=gnu11 -D_GNU_SOURCE -MMD -MP \
		   -DPGRPTRACE_VERSION='"$(VERSION)"' \
		   -Ibpf $(USER_INC) -I$(OUTPUT) $(EXTRA_CFLAGS)
# libsystemd and libmicrohttpd are loaded when --journal or --metrics asks
# (user/dlib.h): only their headers are needed here.
LIBS		:= $(shell $(PKG_CONFIG) --libs libbpf zlib ncursesw \
		     2>/dev/null || echo -lbpf -lelf -lz -lncursesw -ltinfo) \
		   -lpthread -ldl
ALL_LDFLAGS	:= $(LDFLAGS) $(SAN_FLAGS) $(EXTRA_LDFLAGS)
BPF_CFLAGS	:= -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		   -Ivmlinux/$(ARCH) -Ibpf -MMD -MP

# Packages a fresh Debian 12 needs: to build, and to test.
BUILD_PKGS	:= make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config uthash-dev \
		   libsystemd-dev libncurses-dev libmicrohttpd-dev dpkg-dev
TEST_PKGS	:= clang-format libclang-rt-14-dev libcmocka-dev libjansson-dev uthash-dev python3 python3-jsonschema perl util-linux procps man-db tmux openssh-server rsyslog \
		   qemu-system-x86 busybox-static cpio podman runc conmon systemd logrotate bash-completion \
		   chromium prometheus lintian

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all bpf clean check-san deps deps-test run check test unit integration install vmlinux help \
	format check-format

all: $(BIN)

help:
	@echo 'make            build ./pgrptrace (needs the build packages)'
	@echo 'make run        install missing packages, build, and trace (root)'
	@echo 'make check      install missing packages, build, and run every test'
	@echo 'make check-loaded  the same with a busy loop on every vCPU'
	@echo 'make check-quick   unit tests and the plain end-to-end tests, this kernel only (~7 min)'
	@echo 'make soak       logins, jobs, timers and churn at once, checked (root, SOAK_SECONDS=600)'
	@echo 'make bench      install the observers and run the benchmark (root, ~11 min)'
	@echo 'make bench-guest  the cost of each hook level in a qemu guest of Debian 12 (~6 min)'
	@echo 'make format     format the C sources as .clang-format says (make check fails otherwise)'
	@echo 'make bpf        build only the BPF object (ARCH=x86|arm64)'
	@echo 'make vmlinux    regenerate vmlinux/$$(ARCH)/vmlinux.h from this kernel'
	@echo 'make install    install to $$(DESTDIR)$$(prefix)'
	@echo 'make deb        build pgrptrace_$(VERSION)_ARCH.deb (pkg/debian), and check it with lintian'
	@echo 'V=1             show full commands'

# Every C source of ours, formatted by clang-format as .clang-format says
# (the kernel's style): make format does it, make check fails on a difference.
FORMAT_FILES	:= $(wildcard user/*.[ch] user/*/*.[ch] bpf/*.[ch] tests/*.c tests/unit/*.[ch] \
		   tests/fuzz/*.c bench/*.c)
CLANG_FORMAT	?= clang-format

format:
	$(Q)$(CLANG_FORMAT) -i $(FORMAT_FILES)

check-format:
	$(call msg,FORMAT,$(words $(FORMAT_FILES)) files)
	$(Q)$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES) || \
		{ echo "make check-format: the files above differ from .clang-format's style;" \
		       "make format fixes them" >&2; exit 1; }

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/user $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BPF_LINKED): $(BPF_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

# The variants: the same source, one feature left out.
BPF_VARIANTS	:= $(OUTPUT)/bpf/pgrptrace_nofetch.o $(OUTPUT)/bpf/pgrptrace_nokfunc.o
$(OUTPUT)/bpf/pgrptrace_nofetch.o: VARIANT_FLAGS := -DPGT_NO_ATOMIC_FETCH
$(OUTPUT)/bpf/pgrptrace_nokfunc.o: VARIANT_FLAGS := -DPGT_NO_KFUNCS

$(BPF_VARIANTS): $(OUTPUT)/bpf/%.o: bpf/pgrptrace.bpf.c $(VMLINUX_H) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(VARIANT_FLAGS) -c $< -o $@

$(BPF_NOFETCH) $(BPF_NOKFUNC): $(OUTPUT)/%.bpf.o: $(OUTPUT)/bpf/%.o
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

bpf: $(BPF_LINKED) $(BPF_NOFETCH) $(BPF_NOKFUNC)

# Each object's skeleton, named after it: pgrptrace_bpf, pgrptrace_nofetch_bpf, ...
$(SKEL) $(SKEL_NOFETCH) $(SKEL_NOKFUNC): $(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUTPUT)/user/%.o: user/%.c | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# The --html page's script and style are built into page.o (.incbin).
$(OUTPUT)/user/out/page.o: user/out/page.html

# The kernel layer's loader, hook table and map access include the skeletons.
SKEL_USERS	:= $(patsubst %,$(OUTPUT)/user/kernel/%.o,loader hooks maps)
$(SKEL_USERS): $(SKEL) $(SKEL_NOFETCH) $(SKEL_NOKFUNC)

$(BIN): $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $^ $(ALL_LDFLAGS) $(LIBS) -o $@

# This kernel's BTF for the host; for another ARCH, the BTF built into
# Debian's kernel package for it (downloaded by apt, nothing installed).
vmlinux:
	$(call msg,GEN,$(VMLINUX_H))
	$(Q)mkdir -p vmlinux/$(ARCH)
ifeq ($(ARCH),$(HOST_ARCH))
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_H).tmp
	$(Q)mv $(VMLINUX_H).tmp $(VMLINUX_H)
else
	$(Q)BPFTOOL=$(BPFTOOL) vmlinux/btf-from-debian.sh $(ARCH) $(VMLINUX_H)
endif

# Install what is missing with apt-get; a no-op when all is there.
deps:
	$(Q)PKGS="$(BUILD_PKGS)" tests/install-deps.sh

deps-test:
	$(Q)PKGS="$(BUILD_PKGS) $(TEST_PKGS)" tests/install-deps.sh

run: deps
	$(Q)$(MAKE) --no-print-directory pgrptrace
	./pgrptrace $(ARGS)

include tests/tests.mk

install: $(BIN)
	$(call msg,INSTALL,$(DESTDIR)$(sbindir)/pgrptrace)
	$(Q)install -D -m 0755 $(BIN) $(DESTDIR)$(sbindir)/pgrptrace
	$(Q)install -D -m 0644 docs/pgrptrace.8 $(DESTDIR)$(mandir)/man8/pgrptrace.8
	$(call msg,INSTALL,$(DESTDIR)$(unitdir)/pgrptrace.service)
	$(Q)install -d -m 0755 $(DESTDIR)$(unitdir)
	$(Q)sed 's|@SBINDIR@|$(sbindir)|g' docs/pgrptrace.service.in \
		>$(DESTDIR)$(unitdir)/pgrptrace.service.tmp
	$(Q)chmod 0644 $(DESTDIR)$(unitdir)/pgrptrace.service.tmp
	$(Q)mv $(DESTDIR)$(unitdir)/pgrptrace.service.tmp $(DESTDIR)$(unitdir)/pgrptrace.service
	$(call msg,INSTALL,$(DESTDIR)$(sysconfdir)/logrotate.d/pgrptrace)
	$(Q)install -D -m 0644 docs/pgrptrace.logrotate $(DESTDIR)$(sysconfdir)/logrotate.d/pgrptrace
	$(call msg,INSTALL,$(DESTDIR)$(bashcompdir)/pgrptrace)
	$(Q)install -D -m 0644 docs/pgrptrace.bash-completion $(DESTDIR)$(bashcompdir)/pgrptrace

# The Debian package, from a staged install with Debian's paths and flags.
DEB_FILE	:= pgrptrace_$(VERSION)_$(shell dpkg --print-architecture 2>/dev/null || echo unknown).deb
.PHONY: deb
deb:
	$(Q)$(MAKE) --no-print-directory DEB=1 .output-deb/pgrptrace
	$(Q)pkg/debian/build.sh $(VERSION) .output-deb $(DEB_FILE)
	$(call msg,LINTIAN,$(DEB_FILE))
	$(Q)lintian --fail-on error,warning $(DEB_FILE) 2>&1 | grep -v '^running with root' || true
	$(Q)lintian --fail-on error,warning $(DEB_FILE) >/dev/null 2>&1

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf .output .output-san .output-arm64 .output-x86 .output-deb pgrptrace \
		pgrptrace_*.deb

-include $(wildcard $(OUTPUT)/bpf/*.d $(OUTPUT)/user/*.d $(OUTPUT)/user/*/*.d $(OUTPUT)/tests/*.d)
