// fedgrid's own check of SimGrid XML platforms (platforms/platform_xml_check.hpp): values that
// make SimGrid 3.32 abort the process are input errors (exit 2, file, line and attribute), found
// before SimGrid reads the file; malformed XML and unsupported elements likewise.
#include <gtest/gtest.h>

#include <filesystem>

#include "platforms/platform_error.hpp"
#include "platforms/platform_xml_check.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using platforms::check_platform_xml;
using platforms::check_platform_xml_text;
using platforms::PlatformError;

const std::string kInputs = std::string(test::source_dir()) + "/tests/inputs/platform_xml/";

// Each of these made SimGrid abort (checked against libsimgrid 3.32): the host on line 6 and the
// attribute that was at fault.
TEST(PlatformXml, ValuesSimGridAbortsOnAreInputErrors) {
  const std::pair<const char*, const char*> cases[] = {{"core_zero.xml", "key 'core'"},
                                                       {"pstate_beyond_speeds.xml", "key 'pstate'"},
                                                       {"wattage_not_numbers.xml", "key 'wattage_per_state'"},
                                                       {"wattage_one_profile_two_speeds.xml", "key 'wattage_per_state'"},
                                                       {"dragonfly_three_parts.xml", "key 'topo_parameters'"},
                                                       {"torus_fewer_radicals.xml", "key 'radical'"},
                                                       {"host_link_unknown_link.xml", "key 'up'"},
                                                       // No link on its route: the first transfer aborts.
                                                       {"cluster_zone_host_without_host_link.xml", "key 'host_link'"},
                                                       // Found by fuzz_xml_platform: a NUL inside the value hid
                                                       // "10" alone from the check, not from SimGrid.
                                                       {"nul_in_wattage.xml",
                                                        "key 'platform.xml': not well-formed XML: control character 0x00"}};
  const std::string dir = test::temp_dir("xml_aborts");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("xml"));
  for (const auto& [file, key] : cases) {
    const std::string xml = kInputs + file;
    for (const char* command : {"validate ", "run "}) {
      auto r = test::run_fedgrid(std::string(command) + dir + "/s.yaml --out " + dir + "/out --set platform.hospitals=null " +
                                 "--set platform.xml=" + xml + " --set training.mode=timing-only --set stop.rounds=1");
      EXPECT_EQ(r.exit_code, 2) << command << file << "\n" << r.output;
      EXPECT_NE(r.output.find(xml + ":6: " + key), std::string::npos) << command << file << "\n" << r.output;
    }
  }
}

void expect_refused(const std::string& xml, const std::string& expected) {
  try {
    check_platform_xml_text(xml, "p.xml");
    ADD_FAILURE() << "accepted:\n" << xml;
  } catch (const PlatformError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

const char* kHead = "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n";
const char* kTail = "</zone>\n</platform>\n";

TEST(PlatformXml, MalformedOrUnsupportedPlatformsNameTheLine) {
  expect_refused(std::string(kHead) + "<host id=\"a\" speed=\"1Gf\">\n", "p.xml:4: key 'platform.xml': not well-formed XML: <host> is never closed");
  expect_refused(std::string(kHead) + "<host id=\"a\" speed=\"1Gf\"/>\n</zone>\n</platfrom>\n", "p.xml:6: key 'platform.xml': not well-formed XML: </platfrom> closes <platform>");
  expect_refused(std::string(kHead) + "<peer id=\"c\"/>\n" + kTail, "p.xml:4: <peer id='c'>: element not supported");
  expect_refused(std::string(kHead) + "<host id=\"a\" speed=\"1Gf\" availability_file=\"x\"/>\n" + kTail,
                 "p.xml:4: key 'availability_file': <host id='a'>: attribute not supported here");
  expect_refused(std::string(kHead) + "<host id=\"a\" speed=\"0f\"/>\n" + kTail, "key 'speed'");
  expect_refused(std::string(kHead) + "<link id=\"l\" bandwidth=\"0bps\"/>\n" + kTail, "key 'bandwidth'");
  expect_refused(std::string(kHead) + "<link id=\"l\" bandwidth=\"1Gbps\" latency=\"-1ms\"/>\n" + kTail, "key 'latency'");
  expect_refused(std::string(kHead) + "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n"
                 "<route src=\"a\" dst=\"b\"><link_ctn id=\"nowhere\"/></route>\n" + kTail,
                 "p.xml:5: key 'id': <link_ctn id='nowhere'>: no link named 'nowhere'");
  expect_refused(std::string(kHead) + "<host id=\"a\" speed=\"1Gf\"/>\n<route src=\"a\" dst=\"b\"/>\n" + kTail,
                 "p.xml:5: key 'dst': <route>: no host or router named 'b'");
  expect_refused("<platform version=\"3\"><zone id=\"z\" routing=\"Full\"/></platform>", "key 'version'");
  expect_refused("<platform version=\"4.1\"><zone id=\"z\" routing=\"Vivaldi\"/></platform>", "key 'routing'");
}

// <cluster> and Cluster zones: what SimGrid would die on, or silently take differently.
TEST(PlatformXml, ClustersAndClusterZonesAreChecked) {
  auto cluster = [](const std::string& attributes) {
    return std::string(kHead) + "<cluster id=\"c\" prefix=\"n-\" suffix=\".org\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" " +
           attributes + "/>\n" + kTail;
  };
  expect_refused(cluster("radical=\"0-x\""), "p.xml:4: key 'radical': <cluster id='c'>: '0-x' is neither a number nor a range");
  expect_refused(cluster("radical=\"5-2\""), "key 'radical': <cluster id='c'>: the range '5-2' ends before it starts");
  expect_refused(cluster("radical=\"0-99999999\""), "more than 1000000 hosts");
  expect_refused(cluster("radical=\"0-3\" topo_parameters=\"2,2\""), "only TORUS, FAT_TREE and DRAGONFLY clusters take");
  expect_refused(cluster("radical=\"0-3\" topology=\"TORUS\" topo_parameters=\"2,3\""),
                 "the TORUS topology holds 6 nodes but the radical names 4 hosts");
  expect_refused(cluster("radical=\"0-3\" topology=\"TORUS\" topo_parameters=\"4,99999999999\""), "is not a positive integer");
  expect_refused(cluster("radical=\"0-15\" topology=\"FAT_TREE\" topo_parameters=\"2;4,4;1,2\""), "four parts separated by ';'");
  // Both made SimGrid 3.32 die (found by trying small topologies): a torus with two dimensions
  // of 1, a dragonfly with fewer routers per chassis than groups.
  expect_refused(cluster("radical=\"0-3\" topology=\"TORUS\" topo_parameters=\"4,1,1\""), "at most one dimension may be 1");
  expect_refused(cluster("radical=\"0-3\" topology=\"DRAGONFLY\" topo_parameters=\"2,1;2,1;1,1;1\""),
                 "2 groups need at least 2 routers per chassis");
  expect_refused(cluster("radical=\"0-15\" topology=\"FAT_TREE\" topo_parameters=\"2;4,4;1,2;1\""),
                 "part 4 has 1 figures for 2 levels");
  expect_refused(cluster("radical=\"0-3\" topology=\"TORUS\" topo_parameters=\"2,2\" bb_bw=\"1GBps\""),
                 "a TORUS cluster has no backbone or router");
  expect_refused(cluster("radical=\"0-3\" bb_bw=\"1GBps\" bb_lat=\"-1ms\""), "key 'bb_lat'");
  expect_refused(cluster("radical=\"0-3\" bb_sharing_policy=\"SPLITDUPLEX\""), "key 'bb_sharing_policy'");
  expect_refused(cluster("radical=\"0-3\" core=\"0\""), "key 'core'");
  const std::string zone_head = "<?xml version='1.0'?>\n<platform version=\"4.1\">\n";
  expect_refused(zone_head + "<zone id=\"z\" routing=\"None\"><host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/></zone>\n</platform>\n",
                 "a zone with routing=\"None\" has no routes, so it holds one host or router, not 2");
  expect_refused(std::string(kHead) + "<host id=\"a\" speed=\"1Gf\"/>\n<backbone id=\"b\" bandwidth=\"1GBps\" latency=\"0\"/>\n" + kTail,
                 "p.xml:5: <backbone id='b'>: only a zone with routing=\"Cluster\" holds <backbone>");
  expect_refused(std::string(kHead) + "<zone id=\"y\" routing=\"Full\"/>\n<host id=\"a\" speed=\"1Gf\"/>\n" + kTail,
                 "p.xml:5: <host id='a'>: a zone holds either sub-zones and clusters");
  expect_refused(zone_head + "<zone id=\"z\" routing=\"Cluster\">\n<host id=\"a\" speed=\"1Gf\"/>\n"
                 "<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n"
                 "<host_link id=\"a\" up=\"l_UP\" down=\"l_DOWN\"/>\n<host_link id=\"a\" up=\"l_UP\" down=\"l_DOWN\"/>\n</zone>\n</platform>\n",
                 "p.xml:7: key 'id': <host_link id='a'>: host 'a' has a host_link already");
  // SimGrid's own example forms load: split-duplex halves, cabinets, a router as gateway.
  EXPECT_NO_THROW(check_platform_xml_text(
      zone_head + "<zone id=\"w\" routing=\"Full\">\n<zone id=\"z\" routing=\"Cluster\">\n<router id=\"gw\"/>\n"
                  "<host id=\"a\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n"
                  "<host_link id=\"a\" up=\"l_UP\" down=\"l_DOWN\"/>\n"
                  "<cabinet id=\"k\" prefix=\"h-\" suffix=\"\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" radical=\"1-4\"/>\n"
                  "<backbone id=\"bb\" bandwidth=\"10GBps\" latency=\"1us\"/>\n</zone>\n"
                  "<cluster id=\"d\" topology=\"DRAGONFLY\" topo_parameters=\"3,4;4,3;5,1;2\" prefix=\"n-\" suffix=\"\" "
                  "radical=\"0-119\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n"
                  "<link id=\"wan\" bandwidth=\"1GBps\" latency=\"1ms\"/>\n"
                  "<zoneRoute src=\"z\" dst=\"d\" gw_src=\"gw\" gw_dst=\"n-0\"><link_ctn id=\"wan\"/></zoneRoute>\n"
                  "</zone>\n</platform>\n",
      "p.xml"));
}

TEST(PlatformXml, ShippedAndSeedPlatformsPass) {
  EXPECT_NO_THROW(check_platform_xml(std::string(test::source_dir()) + "/platforms/example_star.xml"));
  size_t seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(test::source_dir()) + "/fuzz/corpus/xml_platform")) {
    EXPECT_NO_THROW(check_platform_xml(entry.path().string())) << entry.path();
    ++seeds;
  }
  EXPECT_GE(seeds, 2u);
  // Entities and character references in values, comments between elements.
  EXPECT_NO_THROW(check_platform_xml_text(std::string(kHead) + "<!-- a &amp; b -->\n<host id=\"a&amp;b&#x41;\" speed=\"1Gf\">"
                                          "<prop id=\"tier\" value=\"&lt;weak&gt;\"/></host>\n" + kTail, "p.xml"));
}

}  // namespace
}  // namespace fedgrid
