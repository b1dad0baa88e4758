// A user's SimGrid XML platform as it is (issue "bring your own platform"): hosts without any
// `tier` property, hospitals chosen by name or pattern, tiers from the scenario; the XML's
// own speeds and links in the simulated times (cm02, by hand); no energy-plugin warnings;
// bad mappings refused with exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;

// An explicit-route platform in the shape of SimGrid's examples: one Full zone, hosts with no
// properties at all, a private link from each to the hub.
const char* kCampus = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="campus" routing="Full">
    <host id="hub" speed="4Gf"/>
    <host id="clinic-a" speed="1Gf"/>
    <host id="clinic-b" speed="1Gf"/>
    <host id="lab-gpu" speed="2Gf"/>
    <link id="a" bandwidth="1MBps" latency="10ms"/>
    <link id="b" bandwidth="2MBps" latency="10ms"/>
    <link id="g" bandwidth="4MBps" latency="5ms"/>
    <route src="clinic-a" dst="hub"><link_ctn id="a"/></route>
    <route src="clinic-b" dst="hub"><link_ctn id="b"/></route>
    <route src="lab-gpu" dst="hub"><link_ctn id="g"/></route>
  </zone>
</platform>
)";

// FedAvg, timing-only, cm02, mlp on synthetic 28x28 data: 796,904 bytes a message, 119.28 MFLOP
// a job of 100 samples.
std::string campus_dir(const std::string& tag, const std::string& platform_extra) {
  const std::string dir = test::temp_dir(tag);
  test::write_file(dir + "/campus.xml", kCampus);
  test::write_file(dir + "/s.yaml", "name: campus\nplatform:\n  xml: campus.xml\n  server: {host: hub}\n" + platform_extra +
                                        "data: {dataset: synthetic, samples_per_hospital: 100}\n"
                                        "model: {arch: mlp}\ntraining: {mode: timing-only}\n"
                                        "timing: {network: cm02}\nstop: {rounds: 1}\noutput: {trace: false}\n");
  return dir;
}

TEST(XmlMapping, AnExplicitRoutePlatformWithoutTiersRunsWithTheXmlFigures) {
  const auto dir = campus_dir("xml-campus", "  xml_hospitals: \"clinic-*\"\n  xml_tiers: [{hosts: \"clinic-*\", tier: weak}]\n");
  auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("WARNING"), std::string::npos) << r.output;  // no energy-plugin warnings
  const auto rows = lines(read_file(dir + "/out/hospitals.csv"));
  ASSERT_EQ(rows.size(), 3u);  // clinic-a and clinic-b only: lab-gpu is not a hospital
  EXPECT_EQ(cells(rows[1])[1], "clinic-a");
  EXPECT_EQ(cells(rows[1])[2], "weak");
  EXPECT_EQ(cells(rows[2])[1], "clinic-b");
  // clinic-a: 10 ms + 796,904 B / 1 MB/s each way, 0.11928 s at its XML speed of 1 GF;
  // clinic-b: 10 ms + 796,904 / 2e6 each way. The round ends with clinic-a's upload, then the
  // hub (4 GF) averages two updates: 2 x 199,210 x 2 FLOPs.
  const double a = 2 * (0.010 + 0.796904) + 0.11928;
  EXPECT_EQ(cells(rows[1])[7], "0.119280000");
  EXPECT_EQ(cells(rows[2])[8], "0.816904000");  // clinic-b's comm_s: 2 x (0.010 + 0.398452)
  const auto summary = nlohmann::json::parse(read_file(dir + "/out/summary.json"));
  EXPECT_NEAR(summary["sim_time_s"].get<double>(), a + 2.0 * 199210 * 2 / 4e9, 1e-9);
  // Power figures from the tier catalog (no wattage in the XML): energy is counted.
  EXPECT_GT(summary["energy_j"].get<double>(), 0);
}

TEST(XmlMapping, EveryHostButTheServerByDefaultAndTheFirstMatchingRuleWins) {
  const auto dir = campus_dir("xml-default",
                              "  xml_tiers: [{hosts: lab-gpu, tier: strong}, {hosts: \"*\", tier: medium}]\n");
  const auto rows = test::hospital_rows(dir);
  ASSERT_EQ(rows.size(), 4u);  // sorted by name
  EXPECT_EQ(cells(rows[1])[1] + "," + cells(rows[1])[2], "clinic-a,medium");
  EXPECT_EQ(cells(rows[2])[1] + "," + cells(rows[2])[2], "clinic-b,medium");
  EXPECT_EQ(cells(rows[3])[1] + "," + cells(rows[3])[2], "lab-gpu,strong");
  // A comma-separated list of names picks exactly those.
  const auto two = test::hospital_rows(dir, "--set \"platform.xml_hospitals=lab-gpu, clinic-b\"", "out2");
  ASSERT_EQ(two.size(), 3u);
  EXPECT_EQ(cells(two[1])[1], "clinic-b");
  EXPECT_EQ(cells(two[2])[1], "lab-gpu");
}

TEST(XmlMapping, BadMappingsAreInputErrors) {
  const auto dir = campus_dir("xml-bad", "");
  auto expect_refused = [&](const std::string& sets, const std::string& expected) {
    auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out " + sets);
    EXPECT_EQ(r.exit_code, 2) << sets << "\n" << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << "missing '" << expected << "' in\n" << r.output;
  };
  // No rule gives clinic-a a tier.
  expect_refused("", "key 'platform.xml_tiers': host 'clinic-a' has no 'tier' property and no platform.xml_tiers entry matches it");
  expect_refused("--set platform.xml_hospitals=nobody-*", "key 'platform.xml_hospitals': no host but the server matches 'nobody-*'");
  expect_refused("--set platform.server.host=missing", "key 'platform.server.host': no host named 'missing'");
  // A rule naming a tier the catalog does not have.
  const auto bad_tier = campus_dir("xml-bad-tier", "  xml_tiers: [{hosts: \"*\", tier: huge}]\n");
  auto r = test::run_fedgrid("run " + bad_tier + "/s.yaml --out " + bad_tier + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown tier 'huge'"), std::string::npos) << r.output;
  // The mapping keys without an XML platform.
  test::expect_run_input_error("xml-keys-without-xml", test::tiny_scenario("xml-keys"),
                               "--set platform.xml_hospitals=a", "key 'platform.xml_hospitals': is read only with platform.xml");
}

}  // namespace
}  // namespace fedgrid
