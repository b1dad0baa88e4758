#include "sim/cli/cli.hpp"
#include "sim/core/heap_policy.hpp"

int main(int argc, char** argv) {
  fedgrid::keep_training_buffers_in_heap();
  return fedgrid::cli_main(argc, argv);
}
