#include "sim/engine/compressed_links.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "data/rng.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/engine/node.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/engine/state_file.hpp"

namespace fedgrid {

namespace {

std::unique_ptr<compression::Codec> codec_of(const Scenario::Compression::Link& link) {
  return link.on ? compression::make_codec(link.codec) : nullptr;
}

std::pair<int, int> unordered(int a, int b) { return a < b ? std::pair{a, b} : std::pair{b, a}; }

}  // namespace

CompressedLinks::CompressedLinks(const Scenario& scenario)
    : scenario_(scenario), uplink_(codec_of(scenario.compression.uplink)), downlink_(codec_of(scenario.compression.downlink)) {}

CompressedLinks::~CompressedLinks() = default;

bool CompressedLinks::compresses(const Node& from, const Node&) const {
  return from.is_server() ? downlink_ != nullptr : uplink_ != nullptr;
}

const compression::Codec& CompressedLinks::codec(const Node& from) const {
  return from.is_server() ? *downlink_ : *uplink_;
}

CompressedLinks::Crossing CompressedLinks::encode(const Node& from, const Node& to, const Model& model) {
  const compression::Codec& c = codec(from);
  const int64_t n = model.values();
  Crossing crossing;
  crossing.raw_bytes = model.payload_bytes();
  crossing.encode_flops = c.encode_flops(n), crossing.decode_flops = c.decode_flops(n);
  if (!model.holds_state()) {  // timing-only: the size from n alone (zfp accuracy is refused at load)
    const auto shape = c.shape_bytes(n);
    if (!shape) throw std::logic_error(c.describe() + " has no size without values");
    crossing.bytes = *shape + models::kPayloadHeaderBytes;
    return crossing;
  }
  const Pair sent{from.id(), to.id()};
  const auto ref = references_.find(unordered(from.id(), to.id()));
  const bool has_ref = ref != references_.end() && ref->second.values() == n;
  std::vector<float> difference = model.weights;
  if (has_ref)
    for (size_t i = 0; i < difference.size(); ++i) difference[i] -= ref->second.weights[i];
  compression::EncoderState& state = states_[sent];
  if (!state.residual.empty() && int64_t(state.residual.size()) != n) state = {};  // the shape changed
  const uint64_t seed = mix_seed(mix_seed(scenario_.seed, seed_streams::kCompress, uint64_t(from.id() + 1),
                                          uint64_t(to.id() + 1)),
                                 uint64_t(transfers_[sent]++));
  crossing.encoded = c.encode(difference, state, seed);
  crossing.bytes = crossing.encoded.size() + models::kPayloadHeaderBytes;
  crossing.received = Model{model.spec, c.decode(crossing.encoded)};
  if (has_ref)
    for (size_t i = 0; i < crossing.received.weights.size(); ++i) crossing.received.weights[i] += ref->second.weights[i];
  return crossing;
}

const Model& CompressedLinks::arrived(const Node& from, const Node& to, Crossing&& crossing, const Model& sent) {
  if (!sent.holds_state()) return sent;
  Model& ref = references_[unordered(from.id(), to.id())];
  ref = std::move(crossing.received);
  return ref;
}

void CompressedLinks::lost(const Node& from, const Node& to, const Crossing& crossing) {
  if (crossing.encoded.bytes.empty()) return;
  codec(from).restore_undelivered(states_[{from.id(), to.id()}], crossing.encoded);
}

void CompressedLinks::arrived_uncompressed(const Node& from, const Node& to, const Model& model) {
  if (!model.holds_state()) return;
  references_[unordered(from.id(), to.id())] = model;
}

// ---------------------------------------------------------------- checkpoints

void CompressedLinks::save(StateWriter& out) const {
  std::vector<int64_t> pairs;
  size_t i = 0;
  for (const auto& [pair, model] : references_) {
    pairs.insert(pairs.end(), {pair.first, pair.second});
    out.put("compression.reference." + std::to_string(i++), model);
  }
  out.put("compression.references", pairs);
  std::vector<int64_t> senders;
  i = 0;
  for (const auto& [pair, count] : transfers_) {
    senders.insert(senders.end(), {pair.first, pair.second, count});
    const auto s = states_.find(pair);
    out.put("compression.residual." + std::to_string(i++), s == states_.end() ? std::vector<float>{} : s->second.residual);
  }
  out.put("compression.senders", senders);
}

void CompressedLinks::load(const StateReader& in) {
  references_.clear(), states_.clear(), transfers_.clear();
  const auto pairs = in.integers("compression.references");
  for (size_t i = 0; i + 1 < pairs.size(); i += 2)
    references_[{int(pairs[i]), int(pairs[i + 1])}] = in.model("compression.reference." + std::to_string(i / 2));
  const auto senders = in.integers("compression.senders");
  for (size_t i = 0; i + 2 < senders.size(); i += 3) {
    const Pair pair{int(senders[i]), int(senders[i + 1])};
    transfers_[pair] = senders[i + 2];
    states_[pair].residual = in.floats("compression.residual." + std::to_string(i / 3));
  }
}

}  // namespace fedgrid
