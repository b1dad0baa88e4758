#pragma once
// A scenario: the typed, validated form of a scenario YAML file plus --set overrides, its
// sections composed.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/sections/algorithm.hpp"
#include "sim/scenario/sections/compression.hpp"
#include "sim/scenario/sections/data.hpp"
#include "sim/scenario/sections/faults.hpp"
#include "sim/scenario/sections/model.hpp"
#include "sim/scenario/sections/output.hpp"
#include "sim/scenario/sections/platform.hpp"
#include "sim/scenario/sections/stop.hpp"
#include "sim/scenario/sections/timing.hpp"
#include "sim/scenario/sections/training.hpp"

namespace fedgrid {

struct Scenario {
  // Each section's settings and modes are declared with it (sim/scenario/sections/); here by
  // their names in the scenario (Scenario::Platform, Scenario::Timing::Lv08, ...).
  using Platform = PlatformSection;
  using Data = DataSection;
  using ModelSection = fedgrid::ModelSection;
  using Training = TrainingSection;
  using Algorithm = AlgorithmSection;
  using Stop = StopSection;
  using Timing = TimingSection;
  using Faults = FaultsSection;
  using Compression = CompressionSection;
  using Output = OutputSection;

  std::string file;  // path it was read from, or "<built-in quickstart>"
  std::map<std::string, int> key_lines;  // dotted key -> line in `file`, 0 for --set overrides
  // An InputError pointing at where `key` was set (or at the file when it was defaulted).
  [[nodiscard]] class InputError error_at(const std::string& key, const std::string& message) const;
  std::string name;
  uint64_t seed = 42;

  Platform platform;
  Data data;
  ModelSection model;
  Training training;
  Algorithm algorithm;
  Stop stop;
  Timing timing;
  Faults faults;
  Compression compression;
  Output output;
};

// Loads, applies "key.path=value" overrides, validates and resolves relative paths.
// Throws InputError listing every problem found (file, line, key, message).
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});
// The built-in quickstart (scenarios/quickstart.yaml compiled in) with overrides.
Scenario builtin_quickstart(const std::vector<std::string>& overrides = {});
Scenario load_scenario_text(const std::string& text, const std::string& label,
                            const std::vector<std::string>& overrides = {});

// "did you mean" helper: the declared key closest to `path` (edit distance), or "".
std::string closest_key(const std::string& path);

}  // namespace fedgrid
