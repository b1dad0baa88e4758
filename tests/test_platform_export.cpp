// `fedgrid platform` (issue "bring your own platform"): the star a scenario builds, written as
// SimGrid XML, runs back through platform.xml into byte-identical outputs; SimGrid's cluster
// forms run with their own figures (cm02, by hand); hospitals come in the XML's order; a
// missing path between hospitals is an input error, not SimGrid's abort.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;

// Runs `yaml` on its built-in star, exports the star, runs it again on the export; every output
// but perf.json (wall clock) must be the same bytes.
void expect_round_trip(const std::string& tag, const std::string& yaml, const std::vector<std::string>& files) {
  const std::string dir = test::temp_dir(tag);
  test::write_file(dir + "/s.yaml", yaml);
  auto exported = test::run_fedgrid("platform " + dir + "/s.yaml --out " + dir + "/star.xml");
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  auto built = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/built");
  ASSERT_EQ(built.exit_code, 0) << built.output;
  auto from_xml = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/xml --set platform.hospitals=null " +
                                    "--set platform.xml=" + dir + "/star.xml --set platform.server.host=server");
  ASSERT_EQ(from_xml.exit_code, 0) << from_xml.output;
  for (const auto& f : files) {
    const std::string a = read_file(dir + "/built/" + f), b = read_file(dir + "/xml/" + f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_EQ(a, b) << f << " differs between the built star and its XML export";
  }
}

TEST(PlatformExport, TimingOnlyWithOverridesBackboneAndLinkStepsIsByteIdentical) {
  const std::string dir = test::temp_dir("export-links");
  test::write_file(dir + "/links.csv", "hospital,time_s,bandwidth_factor,latency_s\nweak-1,0.5,0.25,0.05\n");
  expect_round_trip("export-timing", R"(name: export
seed: 3
platform:
  server: {tier: cloud}
  backbone: {bandwidth_bps: 2e9, latency_s: 0.0015}
  hospitals:
    - {count: 3, tier: weak, uplink_bps: 7.3e6, latency_s: 0.031}
    - {count: 2, tier: medium, speed_flops: 3.3e10}
    - {count: 2, tier: strong}
data: {dataset: synthetic, samples_per_hospital: 300}
model: {arch: cnn}
training: {mode: timing-only}
timing: {network: cm02}
stop: {rounds: 3}
faults: {link_trace: )" + dir + "/links.csv}\n",
                    {"rounds.csv", "hospitals.csv", "events.csv", "summary.json", "trace.json"});
}

TEST(PlatformExport, RealTrainingPeerToPeerIsByteIdentical) {
  // FedSKD sends between hospitals: the export's Cluster zone routes them as the star does.
  expect_round_trip("export-fedskd", test::tiny_scenario("export-p2p", "algorithm: {name: fedskd}\n") +
                                         "output: {trace: false}\n",
                    {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"});
}

TEST(PlatformExport, RefusesXmlPlatformsAndCohorts) {
  const std::string dir = test::temp_dir("export-refused");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("refused"));
  auto cohorts = test::run_fedgrid("platform " + dir + "/s.yaml --set timing.cohorts=true --set training.mode=timing-only");
  EXPECT_EQ(cohorts.exit_code, 2) << cohorts.output;
  EXPECT_NE(cohorts.output.find("key 'timing.cohorts'"), std::string::npos) << cohorts.output;
  auto xml = test::run_fedgrid("platform " + dir + "/s.yaml --set platform.hospitals=null --set platform.xml=" +
                               std::string(test::source_dir()) + "/platforms/example_star.xml");
  EXPECT_EQ(xml.exit_code, 2) << xml.output;
  EXPECT_NE(xml.output.find("SimGrid XML already"), std::string::npos) << xml.output;
}

// A flat SimGrid <cluster> with a backbone, as users write one: no tier anywhere in the XML.
// Route node-i -> node-0: link_i UP, backbone, link_0 DOWN.
const char* kCluster = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="ward" prefix="node-" suffix=".ward" radical="0-2,10" speed="1Gf" bw="1MBps" lat="10ms"
           bb_bw="10MBps" bb_lat="1ms"/>
</platform>
)";

TEST(PlatformExport, AFlatClusterRunsWithItsOwnFiguresInDeclarationOrder) {
  const std::string dir = test::temp_dir("cluster");
  test::write_file(dir + "/ward.xml", kCluster);
  test::write_file(dir + "/s.yaml", "name: ward\nplatform:\n  xml: ward.xml\n  server: {host: node-0.ward, tier: cloud}\n"
                                    "  xml_tiers: [{hosts: \"node-*\", tier: weak}]\n"
                                    "data: {dataset: synthetic, samples_per_hospital: 100}\n"
                                    "model: {arch: mlp}\ntraining: {mode: timing-only}\n"
                                    "timing: {network: cm02}\nstop: {rounds: 1}\noutput: {trace: false}\n");
  const auto rows = test::hospital_rows(dir);
  ASSERT_EQ(rows.size(), 4u);
  // Radical order, not name order ("node-10" sorts before "node-2").
  EXPECT_EQ(cells(rows[1])[1] + " " + cells(rows[2])[1] + " " + cells(rows[3])[1], "node-1.ward node-2.ward node-10.ward");
  // Three hospitals download at once through node-0's UP link (1 MB/s shared three ways): each
  // 0.021 s of latency (10 + 1 + 10 ms) + 796,904 B / (1e6 / 3) B/s; uploads the same through
  // its DOWN link (split-duplex: no contention with the downloads). Training 119.28 MFLOP at 1 GF.
  const double transfer = 0.021 + 796904.0 / (1e6 / 3);
  for (size_t i = 1; i <= 3; ++i) {
    EXPECT_EQ(cells(rows[i])[7], "0.119280000") << rows[i];
    EXPECT_NEAR(std::stod(cells(rows[i])[8]), 2 * transfer, 1e-9) << rows[i];
  }
  const auto summary = nlohmann::json::parse(read_file(dir + "/out/summary.json"));
  // Then node-0 (1 GF) averages three updates: 3 x 199,210 x 2 FLOPs.
  EXPECT_NEAR(summary["sim_time_s"].get<double>(), 2 * transfer + 0.11928 + 3.0 * 199210 * 2 / 1e9, 1e-9);
}

TEST(PlatformExport, HospitalsWithoutAPathBetweenThemAreAnInputErrorAtTheFirstTransfer) {
  // Routes to the hub only: FedAvg runs, FedSKD (hospital to hospital) is refused with exit 2.
  const std::string dir = test::temp_dir("no-peer-route");
  test::write_file(dir + "/p.xml", R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="campus" routing="Full">
    <host id="hub" speed="4Gf"/>
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <link id="la" bandwidth="1MBps" latency="10ms"/>
    <link id="lb" bandwidth="1MBps" latency="10ms"/>
    <route src="a" dst="hub"><link_ctn id="la"/></route>
    <route src="b" dst="hub"><link_ctn id="lb"/></route>
  </zone>
</platform>
)");
  test::write_file(dir + "/s.yaml", "name: campus\nplatform:\n  xml: p.xml\n  server: {host: hub}\n"
                                    "  xml_tiers: [{hosts: \"*\", tier: weak}]\n"
                                    "data: {dataset: synthetic, samples_per_hospital: 100}\n"
                                    "model: {arch: mlp}\ntraining: {mode: timing-only}\nstop: {rounds: 1}\n"
                                    "output: {trace: false}\n");
  auto fedavg = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/avg");
  EXPECT_EQ(fedavg.exit_code, 0) << fedavg.output;
  auto fedskd = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/skd --set algorithm.name=fedskd");
  EXPECT_EQ(fedskd.exit_code, 2) << fedskd.output;
  EXPECT_NE(fedskd.output.find(dir + "/p.xml: key 'platform.xml': no route from '"), std::string::npos) << fedskd.output;
  EXPECT_NE(fedskd.output.find("', which fedskd sends between"), std::string::npos) << fedskd.output;
  // A hospital the server cannot reach is refused when the platform loads, by validate too.
  test::write_file(dir + "/p2.xml", read_file(dir + "/p.xml").replace(read_file(dir + "/p.xml").find("    <route src=\"b\""),
                                                                        57, ""));
  auto unreachable = test::run_fedgrid("validate " + dir + "/s.yaml --set platform.xml=" + dir + "/p2.xml");
  EXPECT_EQ(unreachable.exit_code, 2) << unreachable.output;
  EXPECT_NE(unreachable.output.find("no route from 'b' to 'hub'"), std::string::npos) << unreachable.output;
}

// The ready scenarios of scenarios/platforms/ run (timing only here: the data is real), with
// their hospitals in the order their XML declares them.
TEST(PlatformExport, ShippedPlatformScenariosRun) {
  const std::string dir = test::temp_dir("shipped-platforms");
  const std::tuple<const char*, size_t, const char*> cases[] = {
      {"regional_network", 5, "university-hospital,strong"},
      {"hospital_cluster", 12, "node-1.ward,medium"},
      {"two_sites", 19, "p-1,strong"}};  // Paris is declared first, although "l-" sorts first
  for (const auto& [name, hospitals, first] : cases) {
    auto r = test::run_fedgrid("run " + std::string(test::source_dir()) + "/scenarios/platforms/" + name + ".yaml --out " +
                               dir + "/" + name + " --set training.mode=timing-only --set stop.rounds=1");
    ASSERT_EQ(r.exit_code, 0) << name << "\n" << r.output;
    const auto rows = lines(read_file(dir + "/" + name + "/hospitals.csv"));
    ASSERT_EQ(rows.size(), hospitals + 1) << name;
    EXPECT_EQ(cells(rows[1])[1] + "," + cells(rows[1])[2], first) << name;
  }
}

}  // namespace
}  // namespace fedgrid
