// The simulator's own scenario keys, each declared once and bound to the Scenario field it
// fills (key_set.hpp), section by section (sim/scenario/sections/); here the top level's, and
// the sections joined in the key table's order. Algorithms declare theirs next to their code;
// both join the key table.
#include "sim/scenario/core_keys.hpp"

#include "sim/scenario/sections/parts.hpp"

namespace fedgrid {
namespace {

// The top level: the run's name and seed.
void top_level_keys(KeySet<Scenario>& k) {
  using S = Scenario;
  k.add("name", &S::name, "scenario", "Run name, used in summary.json and the default output dir")
      .add("seed", &S::seed, "42", "Seed of every random choice (model init, partition, shuffles, sampling)", {.min = 0});
}

// The sections in the key table's order.
KeySet<Scenario> build() {
  KeySet<Scenario> k;
  top_level_keys(k);
  sections::platform_keys(k);
  sections::data_keys(k);
  sections::model_keys(k);
  sections::training_keys(k);
  sections::algorithm_keys(k);
  sections::stop_keys(k);
  sections::timing_keys(k);
  sections::faults_keys(k);
  sections::compression_keys(k);
  sections::output_keys(k);
  return k;
}

}  // namespace

const KeySet<Scenario>& core_keys() {
  static const KeySet<Scenario> keys = build();
  return keys;
}

std::vector<KeyDecl> core_key_declarations() { return core_keys().declarations(""); }

}  // namespace fedgrid
