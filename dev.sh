#!/usr/bin/env bash
# fedgrid's two entry points for a fresh Debian 12 machine:
#   ./dev.sh quickstart   install packages, build (Release), run the quickstart scenario
#   ./dev.sh test         install packages, build (Release), run the whole test suite (ctest)
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

setup() {
  bash scripts/install-deps.sh
  # ccache can reuse objects built with a precompiled header only with these sloppiness flags.
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

case "${1:-}" in
  quickstart)
    setup
    "$BUILD_DIR/fedgrid" run scenarios/quickstart.yaml
    ;;
  test)
    setup
    (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS" ${CTEST_ARGS:-})
    ;;
  *)
    echo "usage: ./dev.sh quickstart | test" >&2
    exit 2
    ;;
esac
