#pragma once
// `fedgrid calibrate`: measures this machine's seconds per training step and per evaluation
// sample for each model and batch size, and writes them as a compute profile
// (sim/jobs/calibration/compute_profile.hpp) for timing.compute: profile.
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/cli/options.hpp"

namespace fedgrid {

// "ARCH[@WIDTH][:CxHxW[:CLASSES]]" -> a spec (input 1x28x28 and 10 classes unless given).
// Throws UsageError("calibrate", ...) naming the item.
models::ModelSpec parse_model_item(const std::string& item);

int calibrate(const Args& a);

}  // namespace fedgrid
