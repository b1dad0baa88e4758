#pragma once
// A sweep file: a base scenario, overrides common to every cell, axes (any scenario key, each
// with a list of values) crossed with each other and with repeated seeds. Expanding it gives
// the cells, each a `fedgrid run` of the base with its own --set overrides and output folder.
//
//   name: capacity
//   base: ../quickstart.yaml           # relative to the sweep file
//   out: results/sweeps/capacity       # default results/sweeps/<name>; --out overrides
//   set: {stop.rounds: 10}             # every cell
//   axes:
//     - {key: algorithm.name, values: [fedavg, fedseq]}
//     - {key: platform.hospitals.0.uplink_bps, name: weak_uplink_bps, values: [10e6, 100e6]}
//   seeds: [1, 2]                      # default: the base scenario's seed
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fedgrid {

struct SweepAxis {
  std::string name;                 // column in sweep.csv and label in folder names (default: key)
  std::string key;                  // scenario key as --set takes it (list items by index)
  std::vector<std::string> values;  // as written in the sweep file (CSV, folder names)
  std::vector<std::string> yaml;    // the same values as YAML text for --set
  int line = 0;                     // of its key in the sweep file
};

struct SweepCell {
  size_t index = 0;                 // position in the grid: first axis slowest, seeds fastest
  std::vector<std::string> values;  // one per axis
  uint64_t seed = 0;
  std::string dir;                  // folder under the sweep's output, named by the values
  std::vector<std::string> overrides;  // the cell's --set list: common, axes, seed
};

struct SweepPlan {
  std::string file;  // the sweep file
  std::string name;
  std::string base;  // base scenario, resolved against the sweep file's folder
  std::string out;   // output folder of the sweep
  std::vector<std::string> common;  // "key=value" for every cell: the file's `set:`, then --set
  std::vector<SweepAxis> axes;
  std::vector<uint64_t> seeds;

  // Every cell of the grid, in order.
  std::vector<SweepCell> cells() const;
};

// Reads and checks a sweep file: its own keys, that every axis and `set` key is a scenario
// key, and that the base scenario with the common overrides loads. Throws InputError naming
// the file, line and key. `out` replaces the file's output folder.
//
// `overrides` ("key=value", the command line's --set) apply to every cell after the file's
// `set:`, so they win over it. A key an axis sweeps (or one inside it, or containing it), the
// seed when the file gives `seeds`, and output.dir are refused: the grid's own values decide.
SweepPlan load_sweep(const std::string& file, const std::optional<std::string>& out = {},
                     const std::vector<std::string>& overrides = {});

}  // namespace fedgrid
