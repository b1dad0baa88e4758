// The models' shapes and costs a run is set up with (run_setup.hpp).
#include "sim/engine/run_setup.hpp"

#include <stdexcept>

#include "models/model_spec.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid::run_setup {
namespace sg4 = simgrid::s4u;

models::ModelSpec model_spec_for(const Scenario& s, const data::ImageShape& shape, int classes) {
  return {s.model.arch, shape.channels, shape.height, shape.width, classes, s.model.width_multiplier};
}

// model.<tier>: the tier's own model on the same data.
models::ModelSpec tier_spec_for(const ModelChoice& m, const models::ModelSpec& global) {
  models::ModelSpec spec = global;
  spec.arch = m.arch, spec.width_multiplier = m.width_multiplier;
  return spec;
}

// Each hospital's own model: its group's platform.hospitals[].model, else its tier's
// model.<tier>, else the global model (hospitals in id order, as hospital_population lists them).
std::vector<models::ModelSpec> hospital_specs(const Scenario& s, const World& world) {
  std::vector<models::ModelSpec> out;
  for (const auto& h : world.platform.hospital_specs) {
    auto it = world.tier_specs.find(h.tier);
    out.push_back(it == world.tier_specs.end() ? world.spec : it->second);
  }
  if (!s.platform.roster.empty() || !s.platform.xml.empty()) return out;
  size_t id = 0;
  for (size_t g = 0; g < s.platform.hospitals.size(); ++g) {
    const auto& group = s.platform.hospitals[g];
    for (int i = 0; i < group.count; ++i, ++id) {
      if (!group.model) continue;
      out[id] = tier_spec_for(*group.model, world.spec);
      try {
        models::model_cost(out[id]);
      } catch (const std::invalid_argument& e) {
        throw s.error_at("platform.hospitals[" + std::to_string(g) + "].model", e.what());
      }
    }
  }
  return out;
}

// The models' shapes and costs (global, per tier, per hospital) once the data's shape is known;
// a model that cannot be built is an input error naming its key.
void set_up_models(World& world) {
  const Scenario& s = world.scenario;
  world.spec = model_spec_for(s, world.data.train.shape, world.data.train.num_classes);
  try {
    world.cost = models::model_cost(world.spec);
  } catch (const std::invalid_argument& e) {
    throw s.error_at("model.arch", e.what());
  }
  for (const auto& [tier, m] : s.model.tiers) {
    world.tier_specs[tier] = tier_spec_for(m, world.spec);
    try {
      models::model_cost(world.tier_specs[tier]);
    } catch (const std::invalid_argument& e) {
      throw s.error_at("model." + tier, e.what());
    }
  }
  world.hospital_specs = hospital_specs(s, world);
}

}  // namespace fedgrid::run_setup
