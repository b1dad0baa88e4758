#pragma once
// The command line: fedgrid run|validate|list|compare|sweep (sim/cli/options.cpp declares their
// options, sim/cli/commands.cpp does them). Exit codes: 0 success, 2 bad input, 1 internal.
#include <functional>

namespace fedgrid {
int cli_main(int argc, char** argv);
// Runs `command` and returns its exit code, or reports what it threw on stderr as every command
// does (usage and input errors: 2, anything else: 1).
int reporting_errors(const std::function<int()>& command);
}
