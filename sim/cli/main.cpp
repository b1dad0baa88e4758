#include "sim/cli/cli.hpp"

int main(int argc, char** argv) { return fedgrid::cli_main(argc, argv); }
