# The two set-up commands of the README: `make demo` and `make test`. Both install their dependencies.
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: deps build demo test test-sanitize clean

deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja -UDET_MODULES $(CMAKE_FLAGS)
	cmake --build $(BUILD)

demo: build
	bash scripts/demo.sh

test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 900 -j2

# Unit tests under ASan + UBSan (not part of `make test`: the Debug sanitizer build takes ~25 min on 2 cores).
test-sanitize: deps
	cmake -S . -B $(BUILD)-asan -G Ninja -UDET_MODULES -DDET_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build $(BUILD)-asan
	cd $(BUILD)-asan && ctest --output-on-failure -L unit -j2

clean:
	rm -rf $(BUILD)
