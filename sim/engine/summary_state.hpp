#pragma once
// The run's totals so far (RunSummary) in a checkpoint, every figure bit for bit, so that a
// resumed run's summary.json is the uninterrupted run's.
#include <string>

#include "sim/engine/observer.hpp"

namespace fedgrid {

class StateWriter;
class StateReader;

void save_summary(StateWriter& out, const std::string& key, const RunSummary& s);
// Loads into `s` the figures save_summary wrote (versions and arithmetic are the resumed run's own).
void load_summary(const StateReader& in, const std::string& key, RunSummary& s);

}  // namespace fedgrid
