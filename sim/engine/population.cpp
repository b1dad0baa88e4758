#include "sim/engine/population.hpp"

#include <libfccp/csv.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "data/rng.hpp"
#include "platforms/roster.hpp"
#include "sim/core/csv_number.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/seed_streams.hpp"

namespace fedgrid {
namespace {

const char* const kFigures[] = {"speed_flops", "uplink_bps", "downlink_bps", "latency_s", "samples"};

// The observed values of an empirical distribution: one column of a CSV ('#' comments).
std::vector<double> read_observed(const std::string& file, const std::string& column, const std::string& key,
                                  bool positive) {
  if (std::error_code ec; !std::filesystem::is_regular_file(file, ec))
    throw InputError(file, 0, key + ".file", "file not found");
  std::vector<double> out;
  try {
    io::CSVReader<1, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_line_comment<'#'>>
        in(file);
    in.read_header(io::ignore_extra_column, column);
    for (std::string cell; in.read_row(cell);)
      out.push_back(csv_number(cell, file, int(in.get_file_line()), column, positive));
  } catch (const io::error::base& e) {
    throw InputError(file, 0, key + ".column", e.what());
  }
  if (out.empty()) throw InputError(file, 0, key + ".file", "no values in column '" + column + "'");
  return out;
}

}  // namespace

std::vector<double> draw_figure(const FigureDraw& d, const std::vector<double>& observed, uint64_t seed, int count) {
  Rng rng(seed);
  std::vector<double> out(size_t(std::max(count, 0)));
  for (auto& v : out) {
    if (d.dist == FigureDist::Lognormal) v = *d.median * std::exp(*d.sigma * rng.normal());
    else if (d.dist == FigureDist::Uniform) v = *d.min + (*d.max - *d.min) * rng.uniform();
    else v = observed[size_t(rng.below(observed.size()))];
    if (d.dist != FigureDist::Uniform) {
      if (d.min) v = std::max(v, *d.min);
      if (d.max) v = std::min(v, *d.max);
    }
  }
  return out;
}

namespace {

const platforms::Tier* tier_named(const platforms::TierCatalog& catalog, const std::string& name,
                                  const std::string& file, int line, const std::string& key) {
  const platforms::Tier* t = catalog.find(name);
  if (!t) throw InputError(file, line, key, "unknown tier '" + name + "' (known: " + catalog.names() + ")");
  return t;
}

// A roster row's or a group's own figures over its tier's.
template <class Overrides>
void apply_overrides(platforms::MachineSpec& m, const Overrides& o) {
  if (o.speed_flops) m.speed_flops = *o.speed_flops;
  if (o.uplink_bps) m.uplink_bps = *o.uplink_bps;
  if (o.downlink_bps) m.downlink_bps = *o.downlink_bps;
  if (o.latency_s) m.latency_s = *o.latency_s;
  if (o.profile_device) m.profile_device = *o.profile_device;
  if (o.speed_factor) m.speed_factor = *o.speed_factor;
}

// A hospital without its own count takes data.samples_per_hospital; when some have one and it
// is not given, the others would have no count at all.
InputError missing_count(const std::string& file, int line, const std::string& key, const std::string& who) {
  return InputError(file, line, key, who + " has no sample count while other hospitals do: set data.samples_per_hospital "
                                           "for those without one");
}

// platform.roster: one hospital per row.
Population roster_population(const Scenario& s, const platforms::TierCatalog& catalog) {
  Population out;
  const auto fixed = s.data.samples_per_hospital;
  const auto rows = platforms::read_roster(s.platform.roster);
  const bool counted = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.samples.has_value(); });
  for (const auto& row : rows) {
    auto m = platforms::machine_from_tier(row.name, *tier_named(catalog, row.tier, s.platform.roster, row.line, "tier"));
    apply_overrides(m, row);
    out.machines.push_back(m);
    if (row.samples && !s.training.timing_only)
      throw InputError(s.platform.roster, row.line, "samples",
                       "sample counts are for training.mode: timing-only (a real run deals its dataset)");
    if (counted && !row.samples && !fixed) throw missing_count(s.platform.roster, row.line, "samples", "'" + row.name + "'");
    if (counted || fixed) out.samples.push_back(row.samples.value_or(fixed.value_or(0)));
  }
  return out;
}

// Each varied figure's draws for group `g`'s hospitals, from the figure's own stream.
std::map<std::string, std::vector<double>> draw_group_figures(const Scenario& s, size_t g) {
  const auto& group = s.platform.hospitals[g];
  const std::string at = "platform.hospitals[" + std::to_string(g) + "]";
  std::map<std::string, std::vector<double>> drawn;
  for (size_t f = 0; f < std::size(kFigures); ++f) {
    const auto it = group.vary.find(kFigures[f]);
    if (it == group.vary.end()) continue;
    const std::string key = at + ".vary." + kFigures[f];
    const bool positive = std::string(kFigures[f]) != "latency_s";
    const auto observed = it->second.dist == FigureDist::Empirical
                              ? read_observed(it->second.file, it->second.column, key, positive)
                              : std::vector<double>{};
    drawn[kFigures[f]] = draw_figure(it->second, observed, mix_seed(s.seed, seed_streams::kPopulation, g, f), group.count);
  }
  return drawn;
}

// platform.hospitals: groups of one tier, each hospital's figures drawn where the group varies them.
Population group_population(const Scenario& s, const platforms::TierCatalog& catalog) {
  Population out;
  const auto fixed = s.data.samples_per_hospital;
  const bool counted = std::any_of(s.platform.hospitals.begin(), s.platform.hospitals.end(),
                                   [](const HospitalGroup& g) { return g.vary.count("samples") > 0; });
  for (size_t g = 0; g < s.platform.hospitals.size(); ++g) {
    const auto& group = s.platform.hospitals[g];
    const std::string at = "platform.hospitals[" + std::to_string(g) + "]";
    const auto* tier = tier_named(catalog, group.tier, s.file, group.line, at + ".tier");
    const auto drawn = draw_group_figures(s, g);
    if (counted && !drawn.count("samples") && !fixed) throw missing_count(s.file, group.line, at + ".vary.samples", at);
    const std::string prefix = group.name.empty() ? group.tier : group.name;
    for (int i = 0; i < group.count; ++i) {
      auto m = platforms::machine_from_tier(prefix + "-" + std::to_string(i + 1), *tier);
      apply_overrides(m, group);
      auto figure = [&](const char* name, double& slot) {
        if (const auto it = drawn.find(name); it != drawn.end()) slot = it->second[size_t(i)];
      };
      figure("speed_flops", m.speed_flops);
      figure("uplink_bps", m.uplink_bps);
      figure("downlink_bps", m.downlink_bps);
      figure("latency_s", m.latency_s);
      out.machines.push_back(m);
      // Counts are whole samples, at least one.
      if (const auto it = drawn.find("samples"); it != drawn.end())
        out.samples.push_back(std::max<int64_t>(1, std::llround(it->second[size_t(i)])));
      else if (counted || fixed)
        out.samples.push_back(*fixed);
    }
  }
  // Names must be unique hosts: two groups of one tier continue the numbering.
  std::map<std::string, int> seen;
  for (auto& m : out.machines)
    if (seen[m.name]++) m.name += "-" + std::to_string(seen[m.name]);
  return out;
}

}  // namespace

Population hospital_population(const Scenario& s, const platforms::TierCatalog& catalog) {
  return s.platform.roster.empty() ? group_population(s, catalog) : roster_population(s, catalog);
}

}  // namespace fedgrid
