#pragma once
// The command line: fedgrid run|validate|list|compare|sweep (sim/cli/options.cpp declares their
// options, sim/cli/commands.cpp does them). Exit codes: 0 success, 2 bad input, 1 internal.
namespace fedgrid {
int cli_main(int argc, char** argv);
}
