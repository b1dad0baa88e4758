#pragma once
// The hospitals a scenario declares (platform.hospitals groups or platform.roster), as machines
// and, for timing-only runs, their sample counts. A group's `vary` draws a figure per hospital
// from a distribution, seeded by the scenario seed (stream kPopulation, by group and figure), so
// the population is the same on every run and each figure's draws do not depend on the others.
#include <cstdint>
#include <vector>

#include "platforms/tier_catalog.hpp"
#include "platforms/topology.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

struct Population {
  std::vector<platforms::MachineSpec> machines;  // in hospital id order
  // Training samples per hospital where the scenario sets them (vary.samples, the roster's
  // `samples` column, else data.samples_per_hospital); empty: the partition decides.
  std::vector<int64_t> samples;
};

// Throws InputError naming the file, line and key of a bad tier, roster row or empirical CSV.
Population hospital_population(const Scenario& scenario, const platforms::TierCatalog& catalog);

// What a distribution gives for `count` hospitals (exposed for tests): lognormal
// median * exp(sigma * N(0,1)), uniform min + (max - min) * U[0,1), empirical a value of
// `observed` drawn uniformly; then raised to min and lowered to max where they are given.
std::vector<double> draw_figure(const FigureDraw& draw, const std::vector<double>& observed, uint64_t seed, int count);

}  // namespace fedgrid
