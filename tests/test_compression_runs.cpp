// Compressed transfers in runs (issue 38, docs/guide/compression.md): the time a transfer takes
// against its encoded size computed by hand, error feedback across transfers, determinism
// across runs and worker counts, resume, and bad settings. The codecs alone:
// tests/test_compression.cpp. SimGrid allows one engine per process and ctest runs a suite in
// one process: only TopkResidualAfterTwoUploadsIsSentNext starts one here, the others run the
// fedgrid binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/engine/federation.hpp"
#include "sim/engine/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::read_file;

// The hospital's and the server's speeds and links (bit/s), numbers easy to follow.
constexpr double kHospSpeed = 1e9, kServerSpeed = 4e9;
constexpr double kHospUpBps = 8e6, kHospDownBps = 16e6, kServerBps = 1e9;
constexpr double kServerLat = 0.001, kHospLat = 0.010;
// mlp on 1x12x12, 10 classes: (144*200+200) + (200*200+200) + (200*10+10) values.
constexpr int64_t kValues = 71210;

// The tiers of one hospital and the server, numbers easy to follow; returns the file.
std::string tiers_file(const std::string& dir) {
  auto tier = [](const char* name, double speed, double up, double down, double lat) {
    return std::string("  ") + name + ": {speed_flops: " + std::to_string(speed) + ", cores: 1, memory_gb: 1, uplink_bps: " +
           std::to_string(up) + ", downlink_bps: " + std::to_string(down) + ", latency_s: " + std::to_string(lat) +
           ", power_idle_w: 10, power_max_w: 20}\n";
  };
  test::write_file(dir + "/tiers.yaml", "tiers:\n" + tier("hosp", kHospSpeed, kHospUpBps, kHospDownBps, kHospLat) +
                                            tier("srv", kServerSpeed, kServerBps, kServerBps, kServerLat));
  return dir + "/tiers.yaml";
}

// One hospital and the server on cm02 (latency + size / bandwidth), one round, with `sets` added.
std::vector<std::string> one_hospital(const std::string& dir) {
  return {"platform.tiers=" + tiers_file(dir), "platform.server.tier=srv", "platform.hospitals=[{count: 1, tier: hosp}]",
          "timing.network=cm02", "platform.backbone.bandwidth_bps=10e9", "stop.rounds=1", "output.dir=" + dir + "/out"};
}

// A timing-only run holds no values: the download carries sign's size from n alone,
// 9 (header) + 4 (one bucket's scale) + ceil(n / 8) sign bytes, plus the 64-byte message
// header; encoding (6 operations a value) is charged on the server before it, decoding (2) on
// the hospital after it. events.csv, against those numbers computed here.
TEST(CompressionRuns, TimingOnlyTransferIsEncodeLatencyEncodedSizeDecode) {
  const std::string dir = test::temp_dir("compression-timing");
  std::string sets = "--set training.mode=timing-only --set compression.downlink.method=sign";
  for (const auto& s : one_hospital(dir)) sets += " --set '" + s + "'";
  const std::string out = test::run_ok("compression-timing-run", test::tiny_scenario("compression"), sets);
  const int64_t bytes = 9 + 4 + (kValues + 7) / 8 + 64;
  ASSERT_EQ(bytes, 8979);
  const auto events = test::events(out);
  ASSERT_GE(events.size(), 3u);
  const auto& encode = events[0], &send = events[1], &decode = events[2];
  EXPECT_EQ(encode.kind, "encode");
  EXPECT_EQ(encode.host, "server");
  EXPECT_DOUBLE_EQ(encode.flops, 6.0 * kValues);
  EXPECT_NEAR(encode.end - encode.start, 6.0 * kValues / kServerSpeed, 1e-9);
  EXPECT_EQ(send.kind, "send");
  EXPECT_EQ(send.bytes, bytes);
  EXPECT_DOUBLE_EQ(send.start, encode.end);
  EXPECT_NEAR(send.end - send.start, kServerLat + kHospLat + double(bytes) * 8 / kHospDownBps, 1e-8);
  EXPECT_EQ(decode.kind, "decode");
  EXPECT_DOUBLE_EQ(decode.start, send.end);
  EXPECT_DOUBLE_EQ(decode.flops, 2.0 * kValues);
  EXPECT_NEAR(decode.end - decode.start, 2.0 * kValues / kHospSpeed, 1e-9);
}

// topk with error feedback, by hand (the codec's own example, docs/guide/compression.md), on
// the first four values of a real model, k = ceil(0.000021 x 71,210) = ceil(1.495) = 2 of its values:
//   1st upload [1, -3, 2, 0.1, 0...], no reference yet: sends -3 and 2, keeps [1, 0, 0, 0.1];
//   2nd upload, the received model plus [0.5, 1, -1, 0.2]: the difference to the reference
//   (what the server received) plus the residual is [1.5, 1, -1, 0.3]: sends 1.5 and 1 (the
//   tie |1| = |-1| goes to the lower index), keeps [0, 0, -1, 0.3];
//   3rd upload, the received model unchanged: sends the residual's -1 and 0.3.
TEST(CompressionRuns, TopkResidualAfterTwoUploadsIsSentNext) {
  // The suite's only test that starts SimGrid in this process (one engine per process).
  std::vector<std::string> sets = one_hospital(test::temp_dir("compression-topk"));
  sets.insert(sets.end(), {"compression.uplink.method=topk", "compression.uplink.fraction=0.000021"});
  Scenario s = load_scenario_text(test::tiny_scenario("compression"), "<compression test>", sets);
  std::vector<std::vector<float>> received;
  run_scenario(s, {.write_outputs = false}, [&](Federation& fed) {
    Hospital& h = *fed.hospitals()[0];
    Model m = fed.init_model();
    std::fill(m.weights.begin(), m.weights.end(), 0.0f);
    m.weights[0] = 1, m.weights[1] = -3, m.weights[2] = 2, m.weights[3] = 0.1f;
    Model got = fed.send(h, fed.server(), m);
    received.push_back(got.weights);
    for (auto [i, d] : {std::pair{0, 0.5f}, {1, 1.0f}, {2, -1.0f}, {3, 0.2f}}) got.weights[size_t(i)] += d;
    got = fed.send(h, fed.server(), got);
    received.push_back(got.weights);
    received.push_back(fed.send(h, fed.server(), got).weights);
  });
  ASSERT_EQ(received.size(), 3u);
  const std::vector<std::vector<float>> expected{{0, -3, 2, 0}, {1.5f, -2, 2, 0}, {1.5f, -2, 1, 0.3f}};
  for (size_t t = 0; t < 3; ++t) {
    ASSERT_EQ(received[t].size(), size_t(kValues));
    for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(received[t][i], expected[t][i]) << "upload " << t + 1 << ", value " << i;
    for (size_t i = 4; i < received[t].size(); ++i) ASSERT_EQ(received[t][i], 0.0f) << "upload " << t + 1 << ", value " << i;
  }
}

const std::string kQuantize8 = "compression: {uplink: {method: quantize, bits: 8}}\n";

std::string run_in(const std::string& tag, const std::string& yaml, const std::string& sets) {
  const std::string dir = test::temp_dir(tag);
  test::write_file(dir + "/s.yaml", yaml);
  const auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out " + sets);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir + "/out";
}

// Real encoded bytes: quantize's stochastic rounding draws from (seed, sender, receiver,
// transfer number), so two runs and any worker count give the same bytes; rounds.csv carries
// the encoded bytes and their ratio, summary.json their sums.
TEST(CompressionRuns, Quantize8IsTheSameAcrossRunsAndWorkers) {
  const std::string yaml = test::tiny_scenario("quantize8", kQuantize8) + "\n";
  const auto a = run_in("compression-q8-a", yaml, "--set stop.rounds=2");
  const auto b = run_in("compression-q8-b", yaml, "--set stop.rounds=2");
  const auto c = run_in("compression-q8-c", yaml, "--set stop.rounds=2 --set training.workers=1");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"}) {
    EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f;
    EXPECT_EQ(read_file(a + "/" + f), read_file(c + "/" + f)) << f << " with training.workers=1";
  }
  const auto rows = test::lines(read_file(a + "/rounds.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const auto head = test::cells(rows[0]), first = test::cells(rows[1]);
  const auto col = [&](const std::string& name) {
    return size_t(std::find(head.begin(), head.end(), name) - head.begin());
  };
  ASSERT_LT(col("bytes_encoded"), head.size());
  ASSERT_LT(col("compression_ratio"), head.size());
  // Six uploads of 10 (header) + 8 (one bucket's min and max) + n codes + 64 bytes, against
  // n x 4 + 64 uncompressed; the downloads are not compressed.
  const int64_t encoded = 6 * (10 + 8 + kValues + 64), raw = 6 * (4 * kValues + 64);
  EXPECT_EQ(std::stoll(first[col("bytes_encoded")]), encoded);
  EXPECT_EQ(std::stoll(first[col("bytes_up")]), encoded);
  EXPECT_EQ(std::stoll(first[col("bytes_down")]), 6 * (4 * kValues + 64));
  EXPECT_NEAR(std::stod(first[col("compression_ratio")]), double(raw) / double(encoded), 1e-4);
  const std::string summary = read_file(a + "/summary.json");
  EXPECT_NE(summary.find("\"bytes_raw\": " + std::to_string(2 * raw)), std::string::npos) << summary;
  // events.csv: each upload's encoded size, its encoding and decoding as their own rows.
  int sends = 0, encodes = 0, decodes = 0;
  for (const auto& e : test::events(a)) {
    if (e.kind == "send" && e.peer == "server") {
      ++sends;
      EXPECT_EQ(e.bytes, 10 + 8 + kValues + 64);
    }
    encodes += e.kind == "encode", decodes += e.kind == "decode";
  }
  EXPECT_EQ(sends, 12);
  EXPECT_EQ(encodes, 12);
  EXPECT_EQ(decodes, 12);
}

// References, residuals and transfer counts are kept state: killed after round 2 and resumed
// from round 1's checkpoint, the run ends with the uninterrupted run's bytes.
TEST(CompressionRuns, ResumeGivesTheSameBytes) {
  const std::string dir = test::temp_dir("compression-resume");
  test::write_file(dir + "/s.yaml",
                   test::tiny_scenario("compression-resume",
                                       "compression:\n  uplink: {method: topk, fraction: 0.1}\n"
                                       "  downlink: {method: quantize, bits: 4, bucket: 256}\n"
                                       "output: {checkpoint_every: 1}\n"));
  test::expect_resume_gives_same_bytes(dir, "", 2);
}

// Out-of-range settings are input errors naming the file, the line and the key, in the
// codec's words; so are settings without a method, and zfp's accuracy mode without values.
TEST(CompressionRuns, BadSettingsExitTwoNamingTheKey) {
  const std::string base = test::tiny_scenario("compression-bad");
  // tiny_scenario has 14 lines: the section's second line is line 16.
  test::expect_run_input_error("compression-bits", base + "compression:\n  uplink: {method: quantize, bits: 0}\n", "",
                               "s.yaml:16: key 'compression.uplink.bits': must be from 1 to 16 bits per value, got 0");
  test::expect_run_input_error("compression-fraction", base,
                               "--set compression.downlink.method=topk --set compression.downlink.fraction=1.5",
                               "key 'compression.downlink.fraction': must be in (0, 1]: the share of entries sent, got 1.5");
  test::expect_run_input_error("compression-bound", base,
                               "--set compression.uplink.method=zfp --set compression.uplink.error_bound=-0.1",
                               "key 'compression.uplink.error_bound': must be positive");
  test::expect_run_input_error("compression-no-method", base, "--set compression.uplink.bits=4",
                               "key 'compression.uplink.bits': is read only with compression.uplink.method set");
  test::expect_run_input_error("compression-zfp-timing", base,
                               "--set training.mode=timing-only --set compression.uplink.method=zfp",
                               "key 'compression.uplink.zfp_mode': accuracy's encoded size depends on the values");
  test::expect_run_input_error("compression-method", base, "--set compression.uplink.method=gzip",
                               "compression.uplink.method");
}

}  // namespace
}  // namespace fedgrid
