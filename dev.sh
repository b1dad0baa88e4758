#!/usr/bin/env bash
# fedgrid's entry points for a fresh Debian 12 machine:
#   ./dev.sh quickstart        install packages, build (Release), run the quickstart scenario
#   ./dev.sh test              install packages, build (Release), run the whole test suite (ctest),
#                              then a fuzz smoke: every fuzz target for a few seconds (FUZZ_SMOKE_SECONDS, 5)
#   ./dev.sh fuzz [SECONDS]    build the fuzz harnesses (clang, build-fuzz/) and run each target
#                              SECONDS (600) from its corpus; exit 1 if one found a crash, leak or hang
#   ./dev.sh sanitize          build with ASan + UBSan (build-asan/) and run the fast tests under them
set -euo pipefail
cd "$(dirname "$0")"

# ccache: objects built with a precompiled header are reused only with these sloppiness flags;
# paths relative to the clone (BASEDIR, and no working directory in the hash of -g objects) let
# a fresh clone on the same machine, CI's, reuse what an earlier build compiled.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

BUILD_DIR=${BUILD_DIR:-build}
FUZZ_DIR=${FUZZ_DIR:-build-fuzz}
ASAN_DIR=${ASAN_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}

# Installs the packages, configures, and builds the targets named (none: everything).
setup() {
  bash scripts/install-deps.sh
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$BUILD_DIR" -j "$JOBS" "${targets[@]}"
}

# The harnesses of fuzz/ and only the parsers they read with, all clang (fuzz/CMakeLists.txt).
fuzz_build() {
  cmake -S . -B "$FUZZ_DIR" -G Ninja -DFEDGRID_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$FUZZ_DIR" -j "$JOBS"
}

# Runs every target for $1 seconds: new inputs go to $FUZZ_DIR/corpus/TARGET (fuzz/corpus/TARGET,
# the committed seeds, is only read), findings to $FUZZ_DIR/findings/TARGET/.
fuzz_run() {
  local seconds=$1 failed=0 target log execs dict
  for dir in fuzz/corpus/*/; do
    target=$(basename "$dir")
    mkdir -p "$FUZZ_DIR/corpus/$target" "$FUZZ_DIR/findings/$target"
    log="$FUZZ_DIR/findings/$target.log"
    # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: one that needs 2 GB a finding.
    # fuzz/TARGET.dict, where there is one, gives the fuzzer the format's words.
    dict=()
    if [ -f "fuzz/$target.dict" ]; then dict=(-dict="fuzz/$target.dict"); fi
    if "$FUZZ_DIR/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$FUZZ_DIR/findings/$target/" "${dict[@]}" \
        "$FUZZ_DIR/corpus/$target" "$dir" >"$log" 2>&1; then
      execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
      echo "fuzz $target: ${seconds} s, ${execs:-?} inputs, nothing found"
    else
      failed=1
      echo "fuzz $target: FOUND $(ls "$FUZZ_DIR/findings/$target" | head -1) (log: $log)"
      grep -m1 -E "ERROR|runtime error|deadly signal|timeout" "$log" || true
    fi
  done
  return $failed
}

case "${1:-}" in
  quickstart)
    setup fedgrid  # only what it runs: the test suite's build is ./dev.sh test's
    "$BUILD_DIR/fedgrid" run scenarios/quickstart.yaml --overwrite  # the demo is made to be run again
    ;;
  test)
    setup
    (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS" ${CTEST_ARGS:-})
    fuzz_build
    fuzz_run "${FUZZ_SMOKE_SECONDS:-5}"
    ;;
  fuzz)
    bash scripts/install-deps.sh
    fuzz_build
    fuzz_run "${2:-600}"
    ;;
  sanitize)
    bash scripts/install-deps.sh
    flags="-fsanitize=address,undefined -fno-omit-frame-pointer"
    cmake -S . -B "$ASAN_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" \
      -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" >/dev/null
    cmake --build "$ASAN_DIR" -j "$JOBS"
    # Any report ends the process, so the test that started it fails (a fedgrid child exits 1,
    # not the 0 or 2 its test expects).
    export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    (cd "$ASAN_DIR" && ctest --output-on-failure -j "$JOBS" -LE slow ${CTEST_ARGS:-})
    ;;
  *)
    echo "usage: ./dev.sh quickstart | test | fuzz [SECONDS] | sanitize" >&2
    exit 2
    ;;
esac
