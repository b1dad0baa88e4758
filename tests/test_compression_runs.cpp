// Compressed transfers in runs (issue 38, docs/guide/compression.md): the time a transfer takes
// against its encoded size computed by hand, error feedback across transfers, determinism
// across runs and worker counts, resume, a transfer cut by faults (to the server and through peer posts), and bad
// settings. The codecs alone:
// tests/test_compression.cpp. SimGrid allows one engine per process and ctest runs a suite in
// one process: only TopkResidualAfterTwoUploadsIsSentNext starts one here, the others run the
// fedgrid binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "sim/engine/federation.hpp"
#include "sim/engine/run.hpp"
#include "sim/engine/state_file.hpp"
#include "models/model_spec.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/fedskd_scenario.hpp"
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

// The first send row from `host` to `peer` in `round`.
test::Event send_of(const std::string& out, const std::string& host, const std::string& peer, int round) {
  for (const auto& e : test::events(out))
    if (e.kind == "send" && e.host == host && e.peer == peer && e.round == round) return e;
  ADD_FAILURE() << "no send from " << host << " to " << peer << " in round " << round << " of " << out;
  return {};
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

// powersgd reads the model's tensors (models::state_layout): the tiny scenario's mlp is three
// weight matrices, 200 x 144, 200 x 200 and 10 x 200, each followed by its bias. A timing-only
// download carries the size they give at rank 2, counted here from the format: 13 (header) +
// 6 tensors x 8 (their shapes) + 4 a float of P^ (rows x 2), Q (columns x 2) and the biases;
// encoding and decoding charge the counts of sim/compression/powersgd.cpp.
TEST(CompressionRuns, PowersgdTimingOnlyTransferCarriesTheFactorsOfTheModelsMatrices) {
  const std::string dir = test::temp_dir("compression-powersgd-timing");
  std::string sets = "--set training.mode=timing-only --set compression.downlink.method=powersgd";
  for (const auto& s : one_hospital(dir)) sets += " --set '" + s + "'";
  const std::string out = test::run_ok("compression-powersgd-timing-run", test::tiny_scenario("compression"), sets);
  struct Matrix {
    int64_t rows, cols;
  };
  const Matrix matrices[] = {{200, 144}, {200, 200}, {10, 200}};
  const int64_t r = 2, biases = 200 + 200 + 10;
  int64_t floats = biases, values = biases;
  double encode_flops = 0, decode_flops = biases;
  for (const auto& m : matrices) {
    floats += r * (m.rows + m.cols), values += m.rows * m.cols;
    const double n = double(m.rows), c = double(m.cols);
    encode_flops += 6 * n * c * r + r * (3 * n + 1) + 2 * n * r * (r - 1);
    decode_flops += 2 * n * c * r;
  }
  ASSERT_EQ(values, kValues);
  encode_flops += 2.0 * double(kValues);  // the residual in and out, a value each
  const int64_t bytes = 13 + 6 * 8 + 4 * floats + 64;
  ASSERT_EQ(bytes, 9397);
  const auto events = test::events(out);
  ASSERT_GE(events.size(), 3u);
  const auto& encode = events[0], &send = events[1], &decode = events[2];
  EXPECT_EQ(encode.kind, "encode");
  EXPECT_DOUBLE_EQ(encode.flops, encode_flops);
  EXPECT_EQ(send.kind, "send");
  EXPECT_EQ(send.bytes, bytes);
  EXPECT_EQ(decode.kind, "decode");
  EXPECT_DOUBLE_EQ(decode.flops, decode_flops);
}

// dgc's sparsity warm-up in a timing-only run: the r-th download keeps ceil(n / 4^r) entries
// (75%, 93.75%, 98.4375% left out), the size of topk's format with them evenly spread.
TEST(CompressionRuns, DgcTimingOnlyDownloadsWarmUpTheirSparsityRoundByRound) {
  const std::string dir = test::temp_dir("compression-dgc-timing");
  std::string sets = "--set training.mode=timing-only --set compression.downlink.method=dgc";
  for (const auto& s : one_hospital(dir)) sets += " --set '" + s + "'";
  sets += " --set stop.rounds=3";
  const std::string out = test::run_ok("compression-dgc-timing-run", test::tiny_scenario("compression"), sets);
  int64_t last = 0;
  for (int round = 1; round <= 3; ++round) {
    const int64_t k = (kValues + (int64_t(1) << (2 * round)) - 1) >> (2 * round);  // ceil(n / 4^r)
    const int64_t gap = (kValues - k) / k, gap_bytes = k * (gap < 128 ? 1 : 2), bitmap = (kValues + 7) / 8;
    const int64_t bytes = 10 + std::min(gap_bytes, bitmap) + 4 * k + 64;
    EXPECT_EQ(send_of(out, "server", "hosp-1", round).bytes, bytes) << "round " << round;
    if (round == 1) EXPECT_EQ(bytes, 10 + 8902 + 4 * 17803 + 64);
    EXPECT_TRUE(last == 0 || bytes < last);
    last = bytes;
  }
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

// powersgd's warm-started Q and dgc's momentum and warm-up count are kept state too.
TEST(CompressionRuns, PowersgdAndDgcResumeGivesTheSameBytes) {
  const std::string dir = test::temp_dir("compression-resume-powersgd-dgc");
  test::write_file(dir + "/s.yaml",
                   test::tiny_scenario("compression-resume",
                                       "compression:\n  uplink: {method: powersgd, rank: 1}\n"
                                       "  downlink: {method: dgc, sparsity: 0.99}\n"
                                       "output: {checkpoint_every: 1}\n"));
  test::expect_resume_gives_same_bytes(dir, "", 2);
}

// What a checkpoint holds of the transfer stage (CompressedLinks::save): the references by
// unordered pair (lower id, higher id) and the residuals by ordered pair (sender, receiver);
// hospitals by id from 0, the server -1.
struct LinkState {
  int64_t round = 0;
  std::map<std::pair<int, int>, std::vector<float>> references, residuals;
};

LinkState link_state(const std::string& checkpoint) {
  const StateReader in(checkpoint);
  LinkState s;
  s.round = in.integer("round");
  const auto pairs = in.integers("compression.references");
  for (size_t i = 0; i + 1 < pairs.size(); i += 2)
    s.references[{int(pairs[i]), int(pairs[i + 1])}] = in.model("compression.reference." + std::to_string(i / 2)).weights;
  const auto senders = in.integers("compression.senders");
  for (size_t i = 0; i + 2 < senders.size(); i += 3)
    s.residuals[{int(senders[i]), int(senders[i + 1])}] = in.floats("compression.residual." + std::to_string(i / 3));
  return s;
}

// Runs fedgrid on DIR/s.yaml into DIR/<out>, expecting exit 0; returns the output folder.
std::string run_into(const std::string& dir, const std::string& out, const std::string& sets) {
  const auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/" + out + " " + sets);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir + "/" + out;
}

// Round `round`'s checkpoints of a run whose transfer `sender` -> `receiver` was delivered and
// of the same run where faults cut it, that transfer being the first the pair encoded. It
// encoded u = v - b for the sender's model v, b being the pair's reference as it stood: the
// model that last crossed uncompressed (a download, when only the uplink is compressed) or none
// (b = 0, two hospitals' first post). Delivered, the reference became b + d with d =
// decode(encode(u)), and the sender's residual r = u - d. Cut, nothing arrived: the reference
// must still be b (so delivered minus cut is d: nonzero exactly where something was sent), and
// restore_undelivered must have made the residual r + d (topk: u exactly).
// `sent_values`: d's nonzero values, what was sent and is back (none: not checked, for
// powersgd, whose decoded values are zero only where a row of the update was).
void expect_residual_restored(const LinkState& delivered, const LinkState& cut, int64_t round, int sender, int receiver,
                              int64_t values, std::optional<int64_t> sent_values) {
  EXPECT_EQ(delivered.round, round);
  EXPECT_EQ(cut.round, round);
  const std::pair<int, int> pair{std::min(sender, receiver), std::max(sender, receiver)}, ordered{sender, receiver};
  ASSERT_EQ(delivered.references.count(pair), 1u);
  ASSERT_EQ(delivered.residuals.count(ordered), 1u);
  ASSERT_EQ(cut.residuals.count(ordered), 1u);
  const std::vector<float> none(values, 0.0f);
  const auto& base = cut.references.count(pair) ? cut.references.at(pair) : none;
  const auto &moved = delivered.references.at(pair), &r = delivered.residuals.at(ordered), &restored = cut.residuals.at(ordered);
  ASSERT_EQ(base.size(), size_t(values));
  ASSERT_EQ(moved.size(), size_t(values));
  ASSERT_EQ(r.size(), size_t(values));
  ASSERT_EQ(restored.size(), size_t(values));
  int64_t nonzero = 0, mismatches = 0;
  for (size_t i = 0; i < moved.size(); ++i) {
    const float d = moved[i] - base[i];  // exact where nothing was sent (b + 0 - b)
    nonzero += d != 0.0f;
    // b + d - b rounds d by at most half an ulp of b + d: a tolerance far below any value sent.
    mismatches += std::abs(restored[i] - (r[i] + d)) > 1e-6f * (1.0f + std::abs(base[i]));
  }
  if (sent_values) EXPECT_EQ(nonzero, *sent_values) << "a lost transfer moved the pair's reference, or the delivered one sent otherwise";
  EXPECT_GT(nonzero, 0) << "the delivered transfer moved nothing";
  EXPECT_EQ(mismatches, 0) << "the cut run's residual is not the delivered run's residual plus what it delivered";
}

// A crash cuts the hospital's first upload half way through its bytes, under the codecs with
// error feedback (dgc's first encoding, in its warm-up, keeps ceil(n / 4) entries). The downloads are uncompressed, and the global model downloaded is the
// pair's reference: the upload encodes the local update, and the cut must leave that reference. The crash comes after the training, so the run
// without it trained the same model, and round 1's checkpoints (written as round 2 begins)
// must differ as expect_residual_restored says; the faulty run twice gives the same bytes.
TEST(CompressionRuns, ACutUploadGivesItsValuesBackToTheResidualAndLeavesTheReference) {
  for (const std::string method : {"topk", "sign", "powersgd", "dgc"}) {
    SCOPED_TRACE(method);
    const std::string dir = test::temp_dir("compression-cut-" + method);
    test::write_file(dir + "/s.yaml", test::tiny_scenario("compression-cut"));
    std::string sets;
    for (const auto& s : one_hospital(dir)) sets += " --set '" + s + "'";
    sets += " --set stop.rounds=2 --set output.checkpoint_every=1 --set compression.uplink.method=" + method;
    if (method == "topk") sets += " --set compression.uplink.fraction=0.01";  // k = ceil(712.1) = 713
    const std::string delivered = run_into(dir, "delivered", sets);
    const auto upload = send_of(delivered, "hosp-1", "server", 1);
    // Half way through the bytes, after the path's 11 ms latency.
    const double latency = kServerLat + kHospLat, crash_at = upload.start + latency + (upload.end - upload.start - latency) / 2;
    char crashes[128];
    std::snprintf(crashes, sizeof crashes, "hospital,crash_at_s\nhosp-1,%.9f\n", crash_at);
    test::write_file(dir + "/crashes.csv", crashes);
    const std::string cut = run_into(dir, "cut", sets + " --set faults.crash_trace=" + dir + "/crashes.csv");
    const std::string again = run_into(dir, "again", sets + " --set faults.crash_trace=" + dir + "/crashes.csv");

    // The fault did cut the upload: part of its bytes moved, the update was lost.
    const auto partial = send_of(cut, "hosp-1", "server", 1);
    EXPECT_NEAR(partial.end, crash_at, 1e-9);
    EXPECT_GT(partial.bytes, 0);
    EXPECT_LT(partial.bytes, upload.bytes);
    const auto faults = nlohmann::json::parse(read_file(cut + "/summary.json"))["faults"];
    EXPECT_GE(faults["updates_lost"].get<int>(), 1);
    EXPECT_EQ(faults["hospitals_lost"], 1);

    const std::map<std::string, std::optional<int64_t>> sent{
        {"topk", 713}, {"sign", kValues}, {"powersgd", std::nullopt}, {"dgc", (kValues + 3) / 4}};
    expect_residual_restored(link_state(delivered + "/checkpoint.bin"), link_state(cut + "/checkpoint.bin"), 1, 0, -1,
                             kValues, sent.at(method));
    // The same faults give the same bytes: the outputs and the checkpoint.
    for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json", "checkpoint.bin"})
      EXPECT_EQ(read_file(cut + "/" + f), read_file(again + "/" + f)) << f;
  }
}

// FedSKD (algorithms/fedskd/): four hospitals posting their models to each other, the cnn at
// the paper's widths (tests/fedskd_scenario.hpp); `extra` appended.
std::string fedskd_four(const std::string& extra) { return test::fedskd_four("fedskd", true, extra); }

// The values of each FedSKD hospital's cnn (10 classes, 1 channel, 16x16).
std::map<std::string, int64_t> fedskd_values() {
  std::map<std::string, int64_t> n;
  for (const auto& [host, width] : std::map<std::string, double>{{"a-1", 1.0}, {"b-1", 0.96875}, {"c-1", 0.9375}, {"d-1", 0.90625}})
    n[host] = models::model_cost({"cnn", 1, 16, 16, 10, width}).state_values;
  return n;
}

// Hospital-to-hospital posts go through the uplink's codec: each of FedSKD's posts is quantized
// to 8 bits in one bucket, 10 (header) + 8 (its min and max) + n codes + 64 (message header)
// bytes for the sender's n values, encoded on the sender (16 operations a value) and decoded
// on the receiver (5); bytes_peer and bytes_encoded are their sum, bytes_raw 4n + 64 each.
TEST(CompressionRuns, PeerPostsCrossAtTheCodecsSizeAndCountAsPeerBytes) {
  const std::string out =
      run_in("compression-fedskd-q8", fedskd_four("stop: {rounds: 2}\n" + kQuantize8), "");
  const auto n = fedskd_values();
  ASSERT_EQ(n.at("a-1"), 90506);  // the cnn at width 1, as fedgrid's log gives it
  int64_t sends = 0, encoded = 0, raw = 0;
  using HostRound = std::pair<std::string, int>;
  std::map<HostRound, double> encode_flops, decode_flops;
  const auto events = test::events(out);
  for (const auto& e : events) {
    if (e.kind == "encode") encode_flops[{e.host, e.round}] += e.flops;
    if (e.kind == "decode") decode_flops[{e.host, e.round}] += e.flops;
  }
  for (const auto& e : events) {
    if (e.kind != "send") continue;
    ++sends;
    ASSERT_NE(e.host, "server");
    ASSERT_NE(e.peer, "server");
    const int64_t values = n.at(e.host);
    EXPECT_EQ(e.bytes, 10 + 8 + values + 64) << e.host << " -> " << e.peer << ", round " << e.round;
    EXPECT_DOUBLE_EQ(encode_flops[HostRound(e.host, e.round)], 16.0 * double(values)) << e.host << ", round " << e.round;
    EXPECT_DOUBLE_EQ(decode_flops[HostRound(e.peer, e.round)], 5.0 * double(values)) << e.peer << ", round " << e.round;
    encoded += e.bytes, raw += 4 * values + 64;
  }
  EXPECT_EQ(sends, 8);  // each hospital posts once a round
  const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(summary["bytes_peer"], encoded);
  EXPECT_EQ(summary["bytes_up"], 0);
  EXPECT_EQ(summary["bytes_down"], 0);
  EXPECT_EQ(summary["compression"]["bytes_encoded"], encoded);
  EXPECT_EQ(summary["compression"]["bytes_raw"], raw);
  EXPECT_GT(summary["final_accuracy"].get<double>(), 0.5);  // 10 classes: it learns on what it decoded
}

// A crash of the sender cuts its post (FedSKD's round 2, d-1 to a-1, the first transfer
// between those two) under topk 1%: the post's values go back into d-1's residual toward
// a-1 and the pair keeps no reference (expect_residual_restored, round 2's checkpoints).
// Posts are sent as the round begins, before the crash: both runs post the same model.
TEST(CompressionRuns, ACutPostGivesItsValuesBackToTheSendersResidual) {
  const std::string dir = test::temp_dir("compression-fedskd-cut");
  test::write_file(dir + "/s.yaml",
                   fedskd_four("stop: {rounds: 3}\noutput: {checkpoint_every: 1}\n"
                               "compression: {uplink: {method: topk, fraction: 0.01}}\n"));
  const std::string delivered = run_into(dir, "delivered", "");
  const auto post = send_of(delivered, "d-1", "a-1", 2);
  // Near the post's end, when part of its bytes has moved.
  const double crash_at = post.end - (post.end - post.start) / 20;
  char crashes[128];
  std::snprintf(crashes, sizeof crashes, "hospital,crash_at_s\nd-1,%.9f\n", crash_at);
  test::write_file(dir + "/crashes.csv", crashes);
  const std::string cut = run_into(dir, "cut", "--set faults.crash_trace=" + dir + "/crashes.csv");
  const auto partial = send_of(cut, "d-1", "a-1", 2);
  EXPECT_NEAR(partial.end, crash_at, 1e-9);
  EXPECT_LT(partial.bytes, post.bytes);
  EXPECT_GE(nlohmann::json::parse(read_file(cut + "/summary.json"))["faults"]["updates_lost"].get<int>(), 1);
  // Hospitals by id: a-1 0, b-1 1, c-1 2, d-1 3. k = ceil(0.01 n).
  const int64_t values = fedskd_values().at("d-1");
  expect_residual_restored(link_state(delivered + "/checkpoint.bin"), link_state(cut + "/checkpoint.bin"), 2, 3, 0,
                           values, (values + 99) / 100);
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
  test::expect_run_input_error("compression-rank", base + "compression:\n  uplink: {method: powersgd, rank: 0}\n", "",
                               "s.yaml:16: key 'compression.uplink.rank': must be from 1 to 65535: the rank of each "
                               "matrix's approximation, got 0");
  test::expect_run_input_error("compression-dgc-sparsity", base,
                               "--set compression.downlink.method=dgc --set compression.downlink.sparsity=1",
                               "key 'compression.downlink.sparsity': must be in [0, 1): the share of entries left out "
                               "once warmed up, got 1");
  test::expect_run_input_error("compression-dgc-warmup", base,
                               "--set compression.uplink.method=dgc --set compression.uplink.warmup_rounds=-2",
                               "key 'compression.uplink.warmup_rounds': must be 0 (no warm-up) or a count of rounds, got -2");
}

// A codec's settings are declared by its method, as an algorithm's keys are: another method's
// setting is an error naming whose it is, with the closest of the method's own.
TEST(CompressionRuns, AnotherMethodsSettingIsAnError) {
  const std::string base = test::tiny_scenario("compression-other");
  test::expect_run_input_error("compression-sign-bits", base + "compression:\n  uplink: {method: sign, bits: 8}\n", "",
                               "s.yaml:16: key 'compression.uplink.bits': not a setting of method sign: only method "
                               "quantize read it (did you mean 'compression.uplink.bucket'?)");
  test::expect_run_input_error("compression-topk-bucket", base,
                               "--set compression.downlink.method=topk --set compression.downlink.bucket=64",
                               "key 'compression.downlink.bucket': not a setting of method topk: only method quantize or "
                               "method sign read it (did you mean 'compression.downlink.fraction'?)");
  test::expect_run_input_error("compression-zfp-rate-bound", base,
                               "--set compression.uplink.method=zfp --set compression.uplink.zfp_mode=rate "
                               "--set compression.uplink.error_bound=0.01",
                               "key 'compression.uplink.error_bound': not a setting of method zfp in zfp_mode rate: "
                               "only method zfp in zfp_mode accuracy read it (did you mean 'compression.uplink.rate'?)");
  test::expect_run_input_error("compression-powersgd-fraction", base,
                               "--set compression.uplink.method=powersgd --set compression.uplink.fraction=0.01",
                               "key 'compression.uplink.fraction': not a setting of method powersgd: only method topk "
                               "read it (did you mean 'compression.uplink.rank'?)");
  test::expect_run_input_error("compression-topk-momentum", base,
                               "--set compression.uplink.method=topk --set compression.uplink.momentum=0.9",
                               "key 'compression.uplink.momentum': not a setting of method topk: only method dgc read it");
  // `method: none` written out keeps any setting, for a --set or a sweep that turns it on.
  const std::string dir = test::temp_dir("compression-none-kept");
  test::write_file(dir + "/s.yaml", base + "compression:\n  uplink: {method: none, bits: 4}\n");
  EXPECT_EQ(test::run_fedgrid("validate " + dir + "/s.yaml").exit_code, 0);
}

}  // namespace
}  // namespace fedgrid
