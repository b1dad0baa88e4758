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

const std::string kInputs = std::string(FEDGRID_SOURCE_DIR) + "/tests/inputs/platform_xml/";

// Each of these made SimGrid abort (checked against libsimgrid 3.32): the host on line 6 and the
// attribute that was at fault.
TEST(PlatformXml, ValuesSimGridAbortsOnAreInputErrors) {
  const std::pair<const char*, const char*> cases[] = {{"core_zero.xml", "key 'core'"},
                                                       {"pstate_beyond_speeds.xml", "key 'pstate'"},
                                                       {"wattage_not_numbers.xml", "key 'wattage_per_state'"},
                                                       {"wattage_one_profile_two_speeds.xml", "key 'wattage_per_state'"},
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
  expect_refused(std::string(kHead) + "<cluster id=\"c\"/>\n" + kTail, "p.xml:4: <cluster id='c'>: element not supported");
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

TEST(PlatformXml, ShippedAndSeedPlatformsPass) {
  EXPECT_NO_THROW(check_platform_xml(std::string(FEDGRID_SOURCE_DIR) + "/platforms/example_star.xml"));
  size_t seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(FEDGRID_SOURCE_DIR) + "/fuzz/corpus/xml_platform")) {
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
