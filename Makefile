# The two set-up commands are `make demo` and `make test`; each installs what is missing first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

SANITIZE_BUILD_DIR ?= build-sanitize

.PHONY: all deps build test test-sanitize demo bench fuzz format docs clean

all: build

deps:
	@./scripts/install-deps

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The whole test suite built with AddressSanitizer and UndefinedBehaviorSanitizer (-O1 -g,
# assertions on) and linked with link-time optimisation, which makes GCC check the
# one-definition rule across all translation units. Any sanitizer report ends the process with an
# error, so it fails its test. Leaks are reported too (detect_leaks=1).
SANITIZER_ENV = \
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:check_initialization_order=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

$(SANITIZE_BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(SANITIZE_BUILD_DIR) -DCMAKE_BUILD_TYPE=Debug -DSYNTHAUDIT_SANITIZE=ON \
	  -DSYNTHAUDIT_LTO=ON

test-sanitize: deps $(SANITIZE_BUILD_DIR)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD_DIR) -j $(JOBS)
	cd $(SANITIZE_BUILD_DIR) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS)

# Builds only the command-line program (not the tests): the demo's first result comes sooner.
demo: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS) --target synthaudit
	./$(BUILD_DIR)/synthaudit demo --out demo-out

bench: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS) -DSYNTHAUDIT_BENCH=ON
	cmake --build $(BUILD_DIR) -j $(JOBS)
	./scripts/run-bench $(BUILD_DIR)

fuzz: deps
	./scripts/run-fuzz

# docs/metrics.md: the generated parameter, statistic and reference tables from the registry.
docs: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS) --target synthaudit_docgen
	./$(BUILD_DIR)/synthaudit_docgen --write docs/metrics.md

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_BUILD_DIR)
