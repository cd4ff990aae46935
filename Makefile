# Conventional entry points. Everything builds into build/ (the CLI is
# build/skytune); `make demo` and `make test` first install what is missing.
BUILD ?= build
MESON_FLAGS ?=

.PHONY: all deps build demo test test-sanitize bench fuzz clean

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
test-sanitize: deps
	[ -f $(BUILD)-sanitize/build.ninja ] || meson setup $(BUILD)-sanitize -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C $(BUILD)-sanitize
	ASAN_OPTIONS=detect_leaks=1:new_delete_type_mismatch=0 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tools/lsan-opencl.supp \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 sh tools/run-tests.sh $(BUILD)-sanitize \
	    --timeout-multiplier 6

bench: build
	sh bench/run.sh $(BUILD)

# libFuzzer harnesses (fuzz/) built with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, each run for FUZZ_SECONDS on its corpus; the
# figures they print are in docs/benchmarks.md. Installs clang and its
# fuzzer runtime when missing. `make test` runs the corpora without libFuzzer.
FUZZ_SECONDS ?= 60
fuzz:
	@sh tools/install-deps.sh fuzz
	[ -f $(BUILD)-fuzz/build.ninja ] || CC=clang meson setup $(BUILD)-fuzz -Dfuzz=true -Dtests=false -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C $(BUILD)-fuzz fuzz/fuzz_expr fuzz/fuzz_t1 fuzz/fuzz_kernel_tuner fuzz/fuzz_t4 fuzz/fuzz_database
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 sh fuzz/run.sh $(BUILD)-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize $(BUILD)-fuzz
