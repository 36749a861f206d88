# The two set-up commands of the README: `make demo` and `make test`. Both install their dependencies.
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: deps build demo test unit clean

deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja -UDET_MODULES $(CMAKE_FLAGS)
	cmake --build $(BUILD)

demo: build
	bash scripts/demo.sh

test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 900 -j2

clean:
	rm -rf $(BUILD)
