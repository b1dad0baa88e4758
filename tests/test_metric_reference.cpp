// The metric reference (docs/reference/metrics.md) is `fedgrid list metrics`: the metric table
// (sim/engine/metric_table.cpp) and every algorithm's own columns (AlgorithmInfo), each of
// which says what it holds and keeps clear of the standard columns of its file; what compare
// and sweep.csv read of summary.json is written.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "algorithms/registry.hpp"
#include "sim/cli/compare.hpp"
#include "sim/engine/metric_table.hpp"
#include "sim/engine/recorder.hpp"
#include "sim/sweep/sweep_table.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

TEST(MetricTable, ReferenceIsTheListedTable) { test::expect_reference_is_listed("metrics"); }

TEST(MetricTable, AlgorithmColumnsAreDescribedAndNew) {
  for (const auto& alg : algorithms::registry())
    for (const Scope scope : {Scope::Round, Scope::Hospital}) {
      std::set<std::string> taken;  // the file's declared columns, every one a key could enable
      for (const auto& m : metric_table())
        if (m.scope == scope) taken.insert(m.name);
      for (const auto& c : scope == Scope::Round ? alg.round_columns : alg.hospital_columns) {
        EXPECT_FALSE(c.doc.empty()) << alg.name << "'s column " << c.name << " says nothing of what it holds";
        EXPECT_TRUE(taken.insert(c.name).second)
            << alg.name << "'s column " << c.name << " repeats a column of " << output_file(scope);
      }
    }
}

// `fedgrid compare` and sweep.csv pick their summary.json keys themselves (labels, units, an
// order of their own): each must be a run fact or a declared summary entry, so that renaming a
// metric's entry cannot leave them reading a key no run writes.
TEST(MetricTable, CompareAndSweepReadWrittenKeys) {
  std::set<std::string> written(summary_run_facts().begin(), summary_run_facts().end());
  for (const auto& m : metric_table())
    for (const auto& e : m.summary) written.insert(e.key);
  for (const auto& key : compared_keys()) EXPECT_TRUE(written.count(key)) << "fedgrid compare reads '" << key << "'";
  for (const auto& key : sweep_figures()) EXPECT_TRUE(written.count(key)) << "sweep.csv reads '" << key << "'";
}

}  // namespace
}  // namespace fedgrid
