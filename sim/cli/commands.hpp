#pragma once
// What each command does once its command line parsed: run, validate, list, compare, sweep.
#include "sim/cli/options.hpp"

namespace fedgrid {

// Runs `a.command` (a known command; --help and --version are handled before). Returns the
// exit code; throws UsageError, InputError, PlatformError or another exception like cli_main
// expects.
int run_command(const Args& a);

}  // namespace fedgrid
