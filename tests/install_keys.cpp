// The tests read scenarios as the command line does: with every algorithm's own keys in the
// scenario key table (algorithms/registry.hpp).
#include "algorithms/registry.hpp"

namespace {
const bool installed = (fedgrid::algorithms::install_algorithm_keys(), true);
}
