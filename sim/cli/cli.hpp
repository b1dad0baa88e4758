#pragma once
// The command line: fedgrid run|validate|list|compare. Exit codes: 0 success, 2 bad input, 1 internal.
namespace fedgrid {
int cli_main(int argc, char** argv);
}
