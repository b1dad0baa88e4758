#!/usr/bin/env bash
# Simulated time against a real emulated deployment (README "How accurate is the clock?").
#
#   bench/validate_timing.sh [--random N --seed S] [--cores C] [--draw-only] [BUILD_DIR] [OUT_DIR]
#
# A thin wrapper: bench/validate_timing.py does the work, and its header says what (the six
# fixed configurations or N drawn ones, calibration under the emulation's CPU shares, the
# emulation, the "matched", "linear", "replay" and "replay-ns3" simulations, what the error is made of; the last line
# is the summary). Needs root for the cgroups; run it alone.
exec python3 "$(dirname "$0")/validate_timing.py" "$@"
