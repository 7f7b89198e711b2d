# SPDX-License-Identifier: GPL-2.0
# hookcmp: one drop/classify logic on every Linux receive hook.

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PREFIX ?= /usr/local

MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
PKGS := libbpf libmnl libxdp
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lbpf -lmnl -lxdp)

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
CPPFLAGS += -D_GNU_SOURCE -Iprogs -Icore -Iqdisc -Iloader -Ibench $(patsubst %/,-I%,$(wildcard bench/*/)) -Icli -Ibuild $(PKG_CFLAGS)
LDLIBS += $(PKG_LIBS) -lm -lpthread
ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
.DEFAULT_GOAL := all

# Switching SANITIZE rebuilds everything: objects depend on this stamp
# (its name changed when objects began to list their headers, in .d).
STAMP := build/.objs-d-sanitize-$(or $(SANITIZE),0)
$(STAMP):
	@mkdir -p build && rm -f build/.sanitize-* build/.objs-d-* && touch $@

BPF_CFLAGS := -g -O2 -target bpf -Wall -Iprogs -I/usr/include/$(MULTIARCH)

BPF_HDRS := $(wildcard progs/*.h)
# Every program of progs/ is a skeleton: a hook adds no line here.
HOOKS := $(patsubst progs/%.bpf.c,%,$(wildcard progs/*.bpf.c))
SKELS := $(HOOKS:%=build/%.skel.h)

CMD_SRCS := $(wildcard cli/*.c)
CMD_OBJS := $(CMD_SRCS:%.c=build/%.o)
# bench/ and its rooms (subfolders): a new file there needs no line here.
BENCH_SRCS := $(wildcard bench/*.c bench/*/*.c)
BENCH_OBJS := $(BENCH_SRCS:%.c=build/%.o)
LIB_SRCS := $(wildcard core/*.c qdisc/*.c loader/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=build/%.o)
HDRS := $(wildcard core/*.h qdisc/*.h loader/*.h bench/*.h bench/*/*.h cli/*.h) \
	$(BPF_HDRS)

FUZZ := rules classify netlink journal
FUZZ_SECONDS ?= 60
TEST_BINS := build/test_unit build/test_progrun build/test_bench build/hc-send build/bpf-churn \
	$(FUZZ:%=build/replay_%)

all: hookcmp build/hookcmp.8

build/%.bpf.o: progs/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

build/tests/%.bpf.o: tests/%.bpf.c
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

build/tests/%.skel.h: build/tests/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

build/%.skel.h: build/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

# Each object's headers, as the compiler found them (-MMD); the skeletons
# first, as a header can be included only once it exists.
DEPFLAGS = -MMD -MP
$(LIB_OBJS) $(BENCH_OBJS) $(CMD_OBJS): build/%.o: %.c $(STAMP) | $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# Made anew, so a file moved or renamed leaves no member behind.
build/libhookcmp.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The bench, as a library over libhookcmp.a: a program takes what it uses.
build/libbench.a: $(BENCH_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

hookcmp: $(CMD_OBJS) build/libbench.a build/libhookcmp.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/test_%: build/tests/test_%.o build/libhookcmp.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The bench's statistics, rounds' order and scope checks, tested on their own.
# tests/mutate.sh links a changed copy of a bench/ file before these: the
# linker then takes that file's member of libbench.a for nothing.
TEST_BENCH_OBJS := build/tests/test_bench.o build/libbench.a build/libhookcmp.a
build/test_bench: $(TEST_BENCH_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# compare's interval over runs, simulated: doc/methodology.md's table.
build/sim_cover: build/tests/sim_cover.o build/bench/statistics.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

sim-cover: build/sim_cover
	build/sim_cover

# tests/mutate.sh builds test_bench as this Makefile does: it asks.
print-%:
	@echo '$($*)'

build/hc-send: build/tests/hc_send.o build/libhookcmp.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/bpf-churn: build/tests/bpf_churn.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/tests/%.o: tests/%.c $(STAMP) | $(SKELS) build/tests/bad.skel.h
	@mkdir -p $(@D)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) -Itests -Ibuild/tests $(CFLAGS) -c $< -o $@

-include $(wildcard build/*/*.d build/*/*/*.d)

# libFuzzer targets; `make check` replays tests/fuzz/regress/ through the
# same code built with the normal compiler.
build/fuzz_%: tests/fuzz/fuzz_%.c build/libhookcmp.a $(HDRS)
	$(CLANG) $(CPPFLAGS) -Itests -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all \
		$< $(FUZZ_INSTRUMENT_$*) build/libhookcmp.a -o $@ $(PKG_LIBS)
FUZZ_INSTRUMENT_rules := core/rules.c
FUZZ_INSTRUMENT_journal := core/journal.c

build/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c build/libhookcmp.a $(HDRS) $(STAMP)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) $< tests/fuzz/replay.c \
		build/libhookcmp.a -o $@ $(LDLIBS)

# Crashes land in tests/fuzz/regress/TARGET/, to be kept as regressions.
fuzz: deps
	$(MAKE) $(FUZZ:%=build/fuzz_%)
	@for t in $(FUZZ); do \
		mkdir -p build/fuzz-corpus/$$t && \
		build/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=tests/fuzz/regress/$$t/ \
			build/fuzz-corpus/$$t tests/fuzz/regress/$$t || exit 1; \
	done

# Debian packages that building, running and testing need.
DEPS_BUILD := clang llvm gcc make pkg-config libbpf-dev libmnl-dev libxdp-dev \
	libelf-dev zlib1g-dev bpftool libclang-rt-dev python3-docutils
DEPS_RUN := iproute2 ethtool jq iptables ipset nftables valgrind linux-perf gnuplot-nox \
	man-db
# `make check-vm` on top: qemu, a static busybox for the guest's initramfs,
# kmod (depmod here, modprobe in the guest), xz (Debian 13's modules).
DEPS_VM := qemu-system-x86 busybox-static kmod xz-utils

# apt_install PACKAGES[,APT-OPTIONS]: installs those that are missing.
define apt_install
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing $$missing"; \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) $$missing; \
	fi
endef

deps:
	$(call apt_install,$(DEPS_BUILD) $(DEPS_RUN))

# The guests' kernels: 6.1 (Debian 12's), 6.12 (Debian 13's), or any
# Debian kernel package or .deb (scripts/vm-check.sh --kernel).
KERNEL ?= 6.1 6.12

# qemu's recommends are a GUI and firmware the guest does not use. The
# kernel packages are fetched and unpacked here too.
deps-vm: deps
	$(call apt_install,$(DEPS_VM),--no-install-recommends)
	@for k in $(KERNEL); do scripts/vm-check.sh --fetch --kernel $$k || exit 1; done

demo: deps
	$(MAKE) hookcmp build/hc-send
	scripts/demo.sh $(DEMO)

# What the tests run: `make -j2 test-bins` builds it all at once.
test-bins: hookcmp build/hookcmp.8 $(TEST_BINS)

# make check SUITES="netns bench:scope": those suites or tests only.
# make check SANITIZE=1: every test but what only a plain build tests,
# which make check SUITES=plain runs (tests/run.sh); CI runs both.
check: deps
	$(MAKE) test-bins
	SANITIZE=$(SANITIZE) tests/run.sh $(SUITES)

# The kernel-dependent suites inside each of KERNEL, the guests all at
# once (doc/kernels.md); every guest runs, and any failure fails.
check-vm: deps-vm
	$(MAKE) test-bins
	tests/run.sh vm
	scripts/vm-check.sh $(KERNEL:%=--kernel %)

build/hookcmp.8: doc/hookcmp.8.rst
	@mkdir -p $(@D)
	rst2man --halt=warning $< > $@.tmp && mv $@.tmp $@

man: build/hookcmp.8

install: hookcmp build/hookcmp.8
	install -D -m 0755 hookcmp $(DESTDIR)$(PREFIX)/sbin/hookcmp
	install -D -m 0644 build/hookcmp.8 $(DESTDIR)$(PREFIX)/share/man/man8/hookcmp.8
	install -D -m 0644 scripts/hookcmp.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/hookcmp
	install -d $(DESTDIR)$(PREFIX)/share/hookcmp/scripts
	install -m 0755 scripts/plot.sh scripts/perf-profile.sh scripts/perf-stat.sh \
		scripts/gen-vs-trafgen.sh $(DESTDIR)$(PREFIX)/share/hookcmp/scripts/
	install -m 0644 scripts/plot.gp $(DESTDIR)$(PREFIX)/share/hookcmp/scripts/

format:
	clang-format -i progs/*.c progs/*.h core/*.c core/*.h qdisc/*.c qdisc/*.h \
		loader/*.c loader/*.h $(BENCH_SRCS) $(wildcard bench/*.h bench/*/*.h) \
		tests/*.c tests/*.h tests/fuzz/*.c

clean:
	rm -rf build hookcmp

.PHONY: all deps deps-vm demo test-bins check check-vm fuzz man install format clean \
	sim-cover
.SECONDARY: $(HOOKS:%=build/%.bpf.o) build/tests/bad.bpf.o
