// `fedgrid plan` (sim/sweep/plan.hpp, plan_search.hpp): thresholds by bracketing and bisection,
// exact for integer keys and within the tolerance for real ones, in either direction; a search
// over points whose verdict flips more than once says so; bad input exits 2 naming it; and the
// answer on a star of identical hospitals under CM02 equals the count solved by hand from the
// round's closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>

#include "sim/sweep/plan_search.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

PlanEvaluate of(std::function<double(double)> f, int* runs = nullptr) {
  return [f, runs](const std::vector<double>& values) {
    std::vector<PlanPoint> out;
    for (double v : values) out.push_back({v, f(v), ""});
    if (runs) *runs += int(values.size());
    return out;
  };
}

TEST(PlanSearch, IntegerKeysAreExactInBothDirections) {
  int runs = 0;
  const PlanResult up = plan_search(parse_range("10..100000", true), parse_target("x <= 12345.5"), 1,
                                    of([](double v) { return v; }, &runs));
  EXPECT_EQ(up.verdict, "boundary");
  EXPECT_TRUE(up.largest);
  EXPECT_EQ(*up.answer, 12345);
  EXPECT_EQ(up.bad, 12346);
  EXPECT_TRUE(up.monotone);
  EXPECT_LE(runs, 2 + 20);  // bisection, not a grid: log2(100,000) steps
  const PlanResult down = plan_search(parse_range("1..1000", true), parse_target("t <= 2"), 3,
                                      of([](double v) { return 600 / v; }));
  EXPECT_FALSE(down.largest);
  EXPECT_EQ(*down.answer, 300);  // the smallest v with 600 / v <= 2
  EXPECT_EQ(down.bad, 299);
}

TEST(PlanSearch, RealKeysStopWithinTheTolerance) {
  PlanRange r = parse_range("1e6..1e10", false);
  r.tolerance = 1e-4;
  const PlanResult p = plan_search(r, parse_target("time >= 0.5"), 2, of([](double bps) { return 1e9 / bps; }));
  ASSERT_TRUE(p.answer);
  EXPECT_NEAR(*p.answer, 2e9, 2e9 * 1e-4);  // the largest bandwidth at which 1e9 / bps >= 0.5
  EXPECT_LE(std::abs(p.bad - p.good), 1e-4 * std::max(p.good, p.bad));
}

TEST(PlanSearch, SaysWhenTheEndsAgreeAndWhenPointsAreNotMonotone) {
  EXPECT_EQ(plan_search(parse_range("1..10", true), parse_target("x <= 100"), 1, of([](double v) { return v; })).verdict,
            "holds_everywhere");
  EXPECT_EQ(plan_search(parse_range("1..10", true), parse_target("x >= 100"), 1, of([](double v) { return v; })).verdict,
            "holds_nowhere");
  // Holds below 30, fails between 30 and 60, holds again above: the search sees it flip twice.
  const PlanResult p = plan_search(parse_range("1..99", true), parse_target("x <= 1"), 4,
                                   of([](double v) { return v < 30 || (v > 60 && v < 99) ? 0.0 : 2.0; }));
  EXPECT_FALSE(p.monotone);
  EXPECT_FALSE(p.violations.empty());
}

TEST(PlanSearch, BadRangesAndTargetsAreRefused) {
  EXPECT_THROW(parse_range("100..10", true), std::invalid_argument);
  EXPECT_THROW(parse_range("5..5", false), std::invalid_argument);
  EXPECT_THROW(parse_range("a..10", true), std::invalid_argument);
  EXPECT_THROW(parse_range("1.5..10", true), std::invalid_argument);
  EXPECT_THROW(parse_range("10", true), std::invalid_argument);
  EXPECT_THROW(parse_target("round_time_s < 60"), std::invalid_argument);
  EXPECT_THROW(parse_target("round_time_s <= soon"), std::invalid_argument);
  EXPECT_THROW(parse_target("<= 3"), std::invalid_argument);
}

// N identical hospitals on 1 Gbit/s links behind a 10 Mbit/s server, CM02: every download and
// upload shares the server's link N ways, so a round takes 2 L + 2 S N / B + C (L the route's
// latency, S the model's bytes, B the server's bytes/s, C a hospital's compute; the server's
// averaging is charged on a 10^18 FLOP/s host, nothing here).
std::string star(const std::string& dir) {
  test::write_file(dir + "/tiers.yaml", R"(tiers:
  hosp: {speed_flops: 1.0e9, cores: 1, memory_gb: 1, uplink_bps: 1.0e9, downlink_bps: 1.0e9, latency_s: 0.002, power_idle_w: 10, power_max_w: 20}
  srv: {speed_flops: 1.0e18, cores: 1, memory_gb: 1, uplink_bps: 1.0e7, downlink_bps: 1.0e7, latency_s: 0.001, power_idle_w: 10, power_max_w: 20}
)");
  const std::string file = dir + "/star.yaml";
  test::write_file(file, "name: star\nseed: 1\nplatform:\n  tiers: " + dir +
                             "/tiers.yaml\n  server: {tier: srv}\n  backbone: {latency_s: 0}\n  hospitals:\n"
                             "    - {count: 1, tier: hosp}\ndata: {dataset: synthetic, samples_per_hospital: 64}\n"
                             "model: {arch: mlp}\ntraining: {mode: timing-only, batch_size: 32}\n"
                             "algorithm: {name: fedavg, fraction: 1.0}\nstop: {rounds: 1}\ntiming: {network: cm02}\n"
                             "output: {trace: false}\n");
  return file;
}

TEST(Plan, TheLargestHospitalCountMatchesTheClosedForm) {
  const std::string dir = test::temp_dir("plan-star");
  const std::string file = star(dir);
  // S and C from one hospital's run; L and B from the tiers.
  const auto one = test::run_fedgrid("run " + file + " --out " + dir + "/one");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const auto round = test::read_csv(dir + "/one/rounds.csv").at(0);
  const auto hospital = test::read_csv(dir + "/one/hospitals.csv").at(0);
  const double S = std::stod(round.at("bytes_up")), C = std::stod(hospital.at("compute_s"));
  const double L = 0.002 + 0.001, B = 1e7 / 8;
  const int expected = 23;
  // A target halfway between 23 and 24 hospitals' rounds.
  const double target = 2 * L + C + 2 * S * (expected + 0.5) / B;
  const auto plan = test::run_fedgrid("plan " + file + " --vary platform.hospitals[0].count=1..400 --target 'round_time_s <= " +
                                      std::to_string(target) + "' --jobs 2 --out " + dir + "/plan");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("the largest platform.hospitals[0].count for which round_time_s <= "), std::string::npos)
      << plan.output;
  EXPECT_NE(plan.output.find(": 23 (24 fails)"), std::string::npos) << plan.output;
  const std::string json = test::read_file(dir + "/plan/plan.json");
  EXPECT_NE(json.find("\"answer\": 23"), std::string::npos) << json;
  EXPECT_NE(json.find("\"monotone\": true"), std::string::npos) << json;
  EXPECT_GT(test::lines(test::read_file(dir + "/plan/plan.csv")).size(), 3u);
}

// The server's links are keys (platform.server.uplink_bps, downlink_bps): four hospitals' round on
// the same star with the server's uplink doubled takes S N / B less on the way down.
TEST(Plan, TheServersLinksAreKeys) {
  const std::string dir = test::temp_dir("plan-server");
  const std::string file = star(dir);
  const auto base = test::run_fedgrid("run " + file + " --set 'platform.hospitals[0].count=4' --out " + dir + "/base");
  ASSERT_EQ(base.exit_code, 0) << base.output;
  const auto faster = test::run_fedgrid("run " + file + " --set 'platform.hospitals[0].count=4' --set platform.server.uplink_bps=2e7 --out " +
                                        dir + "/faster");
  ASSERT_EQ(faster.exit_code, 0) << faster.output;
  const auto a = test::read_csv(dir + "/base/rounds.csv").at(0), b = test::read_csv(dir + "/faster/rounds.csv").at(0);
  const double S = std::stod(a.at("bytes_down")) / 4;
  EXPECT_NEAR(std::stod(a.at("sim_time_s")) - std::stod(b.at("sim_time_s")), S * 4 / (1e7 / 8) - S * 4 / (2e7 / 8), 1e-6);
  const auto xml = test::run_fedgrid("validate " + file + " --set platform.xml=some.xml --set platform.server.uplink_bps=2e7");
  EXPECT_EQ(xml.exit_code, 2) << xml.output;
  EXPECT_NE(xml.output.find("key 'platform.server.uplink_bps': overrides the generated star's server"), std::string::npos)
      << xml.output;
}

// A break-even (--against): four hospitals for one round against one hospital for three rounds,
// on the same star, over the hospital's latency l. Four share the server's link (2 S 4 / B) but
// cross the route once; one crosses it three times: T4 = 2 (l + Ls) + C + 8 S / B and
// T1x3 = 3 (2 (l + Ls) + C + 2 S / B), so T4 <= T1x3 from l = (2 S / B - 2 C) / 4 - Ls on.
TEST(Plan, ABreakEvenMatchesTheClosedForm) {
  const std::string dir = test::temp_dir("plan-against");
  const std::string file = star(dir);
  std::string yaml = test::read_file(file);
  const std::string four = dir + "/four.yaml", three_rounds = dir + "/three_rounds.yaml";
  test::write_file(four, std::regex_replace(yaml, std::regex("count: 1,"), "count: 4,"));
  test::write_file(three_rounds, std::regex_replace(yaml, std::regex("rounds: 1"), "rounds: 3"));
  const auto one = test::run_fedgrid("run " + file + " --out " + dir + "/one");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const auto round = test::read_csv(dir + "/one/rounds.csv").at(0);
  const auto hospital = test::read_csv(dir + "/one/hospitals.csv").at(0);
  const double S = std::stod(round.at("bytes_up")), C = std::stod(hospital.at("compute_s"));
  const double Ls = 0.001, B = 1e7 / 8;
  const double expected = (2 * S / B - 2 * C) / 4 - Ls;
  ASSERT_GT(expected, 0.01);
  ASSERT_LT(expected, 5);
  const auto plan = test::run_fedgrid("plan " + four + " --against " + three_rounds +
                                      " --vary 'platform.hospitals[0].latency_s=0.001..10' --target 'sim_time_s <= against'"
                                      " --tolerance 1e-4 --jobs 2 --out " + dir + "/plan");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("the smallest platform.hospitals[0].latency_s for which sim_time_s <= against"),
            std::string::npos) << plan.output;
  const std::string json = test::read_file(dir + "/plan/plan.json");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(json, m, std::regex("\"answer\": ([0-9.e+-]+)"))) << json;
  EXPECT_NEAR(std::stod(m[1]), expected, expected * 2e-4) << json;
  EXPECT_NE(json.find("\"against\": \"" + three_rounds + "\""), std::string::npos) << json;
  const auto csv = test::read_csv(dir + "/plan/plan.csv");
  ASSERT_FALSE(csv.empty());
  for (const auto& row : csv) EXPECT_FALSE(row.at("against_figure").empty()) << row.at("value");
  // Each side of a comparison is named: --against without 'against' in the target, and the other way round.
  const auto missing = test::run_fedgrid("plan " + four + " --vary 'platform.hospitals[0].latency_s=0.001..1'"
                                         " --target 'sim_time_s <= against' --out " + dir + "/p2");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("name it with --against"), std::string::npos) << missing.output;
  const auto unused = test::run_fedgrid("plan " + four + " --against " + three_rounds +
                                        " --vary 'platform.hospitals[0].latency_s=0.001..1' --target 'sim_time_s <= 3' --out " +
                                        dir + "/p3");
  EXPECT_EQ(unused.exit_code, 2) << unused.output;
  EXPECT_NE(unused.output.find("'FIGURE <= against'"), std::string::npos) << unused.output;
}

TEST(Plan, BadInputExitsTwoNamingIt) {
  const std::string dir = test::temp_dir("plan-bad");
  const std::string file = star(dir);
  auto plan = [&](const std::string& args) { return test::run_fedgrid("plan " + file + " " + args + " --out " + dir + "/p"); };
  const auto unknown = plan("--vary platform.hospitals[0].cont=1..4 --target 'round_time_s <= 1'");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("platform.hospitals[0].cont': not a scenario key (did you mean"), std::string::npos)
      << unknown.output;
  const auto words = plan("--vary platform.hospitals[0].count=few..many --target 'round_time_s <= 1'");
  EXPECT_EQ(words.exit_code, 2) << words.output;
  EXPECT_NE(words.output.find("is not a number"), std::string::npos) << words.output;
  const auto empty = plan("--vary platform.hospitals[0].count=9..3 --target 'round_time_s <= 1'");
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_NE(empty.output.find("an empty range"), std::string::npos) << empty.output;
  const auto figure = plan("--vary platform.hospitals[0].count=1..3 --target 'no_such_figure <= 1'");
  EXPECT_EQ(figure.exit_code, 2) << figure.output;
  EXPECT_NE(figure.output.find("'no_such_figure': the runs have no such figure"), std::string::npos) << figure.output;
  const auto text_key = plan("--vary algorithm.name=1..3 --target 'round_time_s <= 1'");
  EXPECT_EQ(text_key.exit_code, 2) << text_key.output;
  EXPECT_NE(text_key.output.find("not a number key"), std::string::npos) << text_key.output;
  const auto beyond = plan("--vary platform.hospitals[3].count=1..3 --target 'round_time_s <= 1'");
  EXPECT_EQ(beyond.exit_code, 2) << beyond.output;
  EXPECT_NE(beyond.output.find("list 'platform.hospitals' has 1 item"), std::string::npos) << beyond.output;
}

}  // namespace
}  // namespace fedgrid
