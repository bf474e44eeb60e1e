# The two set-up commands are `make demo` and `make test`; each installs what is missing first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps build test demo bench fuzz format docs clean

all: build

deps:
	@./scripts/install-deps

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
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
	rm -rf $(BUILD_DIR)
