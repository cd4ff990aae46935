# Conventional entry points. Everything builds into build/ (the CLI is
# build/skytune); `make demo` and `make test` first install what is missing.
BUILD ?= build
MESON_FLAGS ?=

.PHONY: all deps build demo test test-sanitize test-valgrind bench fuzz clean

all: build

# Installs the Debian packages the build and the tests need, when missing.
deps:
	@sh tools/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_FLAGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	rm -f demo.db demo.db-wal demo.db-shm
	$(BUILD)/skytune run --plugin dedispersion --preset small --strategy random --budget 60 \
	    --runs 5 --seed 1 --db demo.db
	$(BUILD)/skytune best --db demo.db

test: build
	sh tools/run-tests.sh $(BUILD)

# The same suite built with AddressSanitizer and UndefinedBehaviorSanitizer.
# Leaks inside PoCL and LLVM are suppressed (tools/lsan-opencl.supp), and so
# is new/delete size checking: libclFFT.so.2 deletes the FFT action objects
# it allocates (selectAction) with another size than it allocated them with,
# inside the library, which ASan reports as new-delete-type-mismatch.
# Every UBSan finding ends the program (-fno-sanitize-recover), whatever
# UBSAN_OPTIONS says.
test-sanitize: deps
	[ -f $(BUILD)-sanitize/build.ninja ] || meson setup $(BUILD)-sanitize -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=all
	ninja -C $(BUILD)-sanitize
	ASAN_OPTIONS=detect_leaks=1:new_delete_type_mismatch=0 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tools/lsan-opencl.supp \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 sh tools/run-tests.sh $(BUILD)-sanitize \
	    --timeout-multiplier 6

# The end-to-end tests with every skytune they start run under valgrind's
# memcheck (SKYTUNE_TEST_PREFIX, tests/cli_harness.h); exit status 9 is a
# memory error or a leak, reported on the test's standard error.
# Workers run under valgrind too (--trace-children): they are skytune's own
# code, and under valgrind PoCL names the CPU device by the CPU valgrind
# emulates, so a worker outside it would not find the device its campaign
# chose. The programs PoCL runs to link kernels (/usr/bin/ld) are not
# traced. What the OpenCL stack and the dynamic loader do that skytune
# cannot change is suppressed, each entry with its reason, in
# tools/valgrind-opencl.supp. A kernel build takes 10 to 60 s under
# valgrind, so the suite is the end-to-end tests whose campaigns are small:
# cli, export, report (no device) and valgrind; VALGRIND_TESTS chooses others.
VALGRIND = valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,possible \
	--error-exitcode=9 --num-callers=50 --suppressions=$(CURDIR)/tools/valgrind-opencl.supp \
	--trace-children=yes --trace-children-skip=/usr/bin/*,/bin/*
VALGRIND_TESTS ?= cli export report valgrind
test-valgrind: build
	SKYTUNE_TEST_PREFIX="$(VALGRIND)" SKYTUNE_TEST_TIMEOUT_FACTOR=10 \
	    sh tools/run-tests.sh $(BUILD) --timeout-multiplier 10 $(VALGRIND_TESTS)

bench: build
	sh bench/run.sh $(BUILD)

# libFuzzer harnesses (fuzz/) built with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, every finding fatal (-Dfuzz=true adds
# -fno-sanitize-recover=all, see meson.build), each run for FUZZ_SECONDS on
# its corpus; the figures they print are in docs/benchmarks.md. Installs
# clang and its fuzzer runtime when missing. `make test` runs the corpora
# without libFuzzer.
FUZZ_SECONDS ?= 60
fuzz:
	@sh tools/install-deps.sh fuzz
	[ -f $(BUILD)-fuzz/build.ninja ] || CC=clang meson setup $(BUILD)-fuzz -Dfuzz=true -Dtests=false -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C $(BUILD)-fuzz fuzz/fuzz_expr fuzz/fuzz_t1 fuzz/fuzz_kernel_tuner fuzz/fuzz_t4 fuzz/fuzz_database
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 sh fuzz/run.sh $(BUILD)-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize $(BUILD)-fuzz
