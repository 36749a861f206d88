# The two set-up commands of the README: `make demo` and `make test`. Both install their dependencies.
BUILD ?= build
# Line tables only (-g1) instead of full debug info: backtraces and sanitizer reports keep their file
# and line, and the build takes about a third less time (the full -g of RelWithDebInfo/Debug costs
# 45 s more on the heaviest file). For a debugger with locals, build with plain cmake.
CMAKE_FLAGS ?= "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
# Unity builds: each target's sources compile in batches of 8, so the shared headers (nlohmann/json,
# abseil, gtest) are parsed and their templates compiled once a batch instead of once a file. On 2 cores
# a full build takes about 8 minutes instead of 18. The two Beast TUs stay alone (their CMakeLists).
# For quick edit-compile cycles, configure your own build directory without it.
UNITY ?= -DCMAKE_UNITY_BUILD=ON

.PHONY: deps build webui demo test sanitize-build fuzz clean

deps:
	bash scripts/install-deps.sh

build: deps webui
	cmake -S . -B $(BUILD) -G Ninja -UDET_MODULES $(CMAKE_FLAGS) $(UNITY) -DDET_UNIT_TESTS=$(UNIT_TESTS)
	cmake --build $(BUILD)

# The web UI (webui/: npm ci when its lock file changed, then tsc + vite build into webui/build).
webui: deps
	bash scripts/build-webui.sh

demo: UNIT_TESTS = OFF
demo: build
	bash scripts/demo.sh

# Everything: the unit tests under ASan + UBSan (a clang build of the test binaries only), then the
# harness, web UI and end-to-end tests on the normal build (which then builds no unit test binaries:
# each unit test runs once, where the sanitizers watch it), then every libFuzzer target for
# FUZZ_SECONDS on its checked-in corpus (a third, clang build of the parsing libraries only:
# fuzz/README.md). On 2 cores the fuzz step takes about 3 minutes.
FUZZ_SECONDS ?= 30
UNIT_TESTS ?= ON

test: UNIT_TESTS = OFF
test: sanitize-build build
	@if client=$$(bash scripts/upstream-client.sh); then \
	  echo "make test: Determined 0.38.1's own client at $$client: the e2e_upstream_* suites run against it"; \
	else \
	  echo "make test: no Determined 0.38.1 client (DET_UPSTREAM_CLIENT or ../shared/upstream-client): the e2e_upstream_* suites are skipped"; \
	fi
	cd $(BUILD)-asan && ctest --output-on-failure --timeout 900 -L unit -j2
	cd $(BUILD) && ctest --output-on-failure --timeout 900 -LE unit -j2
	FUZZ_BUILD=$(abspath $(BUILD))-fuzz bash scripts/run-fuzzers.sh $(FUZZ_SECONDS)

fuzz: deps
	FUZZ_BUILD=$(abspath $(BUILD))-fuzz bash scripts/run-fuzzers.sh $(FUZZ_SECONDS)

# The sanitizer build uses clang: it compiles the tests in about 60% of gcc's time (the Beast TU:
# 150 s against 360 s), and a second compiler checks the code.
sanitize-build: deps
	cmake -S . -B $(BUILD)-asan -G Ninja -UDET_MODULES -DDET_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(UNITY) \
	  -DCMAKE_CXX_COMPILER=clang++ "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1"
	cmake --build $(BUILD)-asan --target unit_tests

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-fuzz
