// model.*: its keys, and the model choice readers the platform section shares; no cross-key rules.
#include "models/arch_names.hpp"
#include "sim/scenario/sections/parts.hpp"

namespace fedgrid::sections {

const std::vector<std::string>& arch_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& arch : models::kArchs) out.emplace_back(arch.name);
    return out;
  }();
  return names;
}

std::optional<ModelChoice> model_choice(const KeyValues& from, const std::string& name, ModelChoice base) {
  if (!from.given(name)) return std::nullopt;
  if (!from.is_mapping(name)) {
    base.arch = *from.value<std::string>(name);
    return base;
  }
  if (from.given(name + ".arch")) base.arch = *from.value<std::string>(name + ".arch");
  if (from.given(name + ".width_multiplier")) base.width_multiplier = *from.value<double>(name + ".width_multiplier");
  return base;
}

namespace {

// "cnn | cnn_bn | ...": the archs as model.arch's description lists them.
std::string arch_choices() {
  std::string out;
  for (const auto& a : arch_names()) out += (out.empty() ? "" : " | ") + a;
  return out;
}

}  // namespace

void model_keys(Keys& k) {
  using S = Scenario;
  k.group("model", "The network every hospital trains")
      .bind<std::string>("model.arch", [](S& s) -> auto& { return s.model.arch; }, "cnn",
                         arch_choices() + " (see `fedgrid list models`)",
                         {.allowed = arch_names()})
      .bind<double>("model.width_multiplier", [](S& s) -> auto& { return s.model.width_multiplier; }, "1",
                    "Hidden channels/units scaled to ceil(m * base), 0 < m <= 4: below 1 HeteroFL's model rate; above 1 "
                    "a wider global model, as DynamicFL's baselines prune the strong tier's model",
                    {.min = 0, .max = kMaxWidth, .min_exclusive = true});
  for (const std::string tier : {"weak", "medium", "strong"}) {
    const std::string key = "model." + tier;
    k.custom(key, KeyType::ModelChoice, none,
             "Model of the " + tier + " tier's hospitals (heterofl, fedrolex, feddf): an arch, or {arch, width_multiplier}",
             {.allowed = arch_names()},
             [key, tier](S& s, const KeyValues& from) {
               if (auto m = model_choice(from, key, {s.model.arch, s.model.width_multiplier})) s.model.tiers[tier] = *m;
             })
        .custom(key + ".arch", KeyType::String, none, "Architecture of the " + tier + " tier (default: model.arch)",
                {.allowed = arch_names()}, {})
        .custom(key + ".width_multiplier", KeyType::Float, none,
                "Width of the " + tier + " tier's model (default: model.width_multiplier)",
                {.min = 0, .max = kMaxWidth, .min_exclusive = true}, {});
  }
}

}  // namespace fedgrid::sections
