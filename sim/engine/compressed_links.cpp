#include "sim/engine/compressed_links.hpp"

#include <algorithm>
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

// `senders`: how many nodes send through this direction to one receiver (dgc's N).
std::unique_ptr<compression::Codec> codec_of(const Scenario::Compression::Link& link, int64_t senders) {
  if (!link.on) return nullptr;
  compression::CodecSettings settings = link.codec;
  settings.nodes = std::max<int64_t>(1, senders);
  return compression::make_codec(settings);
}

// The tensors of a model's flat state (models::state_layout: parameters, then buffers), for a
// codec that reads them (powersgd). A layout that does not add up to the model's values is a
// mistake in the cost model's layer walk, not in the scenario.
compression::Layout layout_of(const models::ModelSpec& spec, int64_t values) {
  compression::Layout layout;
  int64_t total = 0;
  for (const auto& tensor : models::state_layout(spec)) {
    compression::TensorShape shape;
    for (const auto& axis : tensor.axes) shape.dims.push_back(axis.channels * axis.block);
    total += shape.values();
    layout.push_back(std::move(shape));
  }
  if (total != values)
    throw std::logic_error("model " + models::spec_label(spec) + ": its layout holds " + std::to_string(total) +
                           " values, its state " + std::to_string(values));
  return layout;
}

std::pair<int, int> unordered(int a, int b) { return a < b ? std::pair{a, b} : std::pair{b, a}; }

}  // namespace

CompressedLinks::CompressedLinks(const Scenario& scenario, int64_t hospitals)
    : scenario_(scenario),
      uplink_(codec_of(scenario.compression.uplink, hospitals)),
      downlink_(codec_of(scenario.compression.downlink, 1)) {}

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
  const compression::Layout layout = c.reads_layout() ? layout_of(model.spec, n) : compression::Layout{};
  const Pair sent{from.id(), to.id()};
  compression::EncoderState& state = states_[sent];
  if (!state.residual.empty() && int64_t(state.residual.size()) != n) state = {};  // the shape changed
  Crossing crossing;
  crossing.raw_bytes = model.payload_bytes();
  crossing.encode_flops = c.encode_flops(n, layout, state), crossing.decode_flops = c.decode_flops(n, layout, state);
  if (!model.holds_state()) {  // timing-only: the size from n alone (zfp accuracy is refused at load)
    const auto shape = c.shape_bytes(n, layout, state);
    if (!shape) throw std::logic_error(c.describe() + " has no size without values");
    crossing.bytes = *shape + models::kPayloadHeaderBytes;
    c.count_encoding(state);  // dgc's warm-up advances as it would with values
    return crossing;
  }
  const auto ref = references_.find(unordered(from.id(), to.id()));
  const bool has_ref = ref != references_.end() && ref->second.values() == n;
  std::vector<float> difference = model.weights;
  if (has_ref)
    for (size_t i = 0; i < difference.size(); ++i) difference[i] -= ref->second.weights[i];
  const uint64_t seed = mix_seed(mix_seed(scenario_.seed, seed_streams::kCompress, uint64_t(from.id() + 1),
                                          uint64_t(to.id() + 1)),
                                 uint64_t(transfers_[sent]++));
  crossing.encoded = c.encode(difference, state, seed, layout);
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
    const compression::EncoderState none;
    const compression::EncoderState& state = s == states_.end() ? none : s->second;
    out.put("compression.residual." + std::to_string(i), state.residual);
    // dgc's and powersgd's state, written only where held: the other codecs' checkpoints are
    // as they were before those codecs.
    if (!state.momentum.empty()) out.put("compression.momentum." + std::to_string(i), state.momentum);
    if (!state.query.empty()) out.put("compression.query." + std::to_string(i), state.query);
    ++i;
  }
  out.put("compression.senders", senders);
  // dgc's encodings per ordered pair (its warm-up's clock), timing-only runs' included, which
  // encode nothing and so count no transfers.
  std::vector<int64_t> encodings;
  for (const auto& [pair, state] : states_)
    if (state.encodings != 0) encodings.insert(encodings.end(), {pair.first, pair.second, state.encodings});
  if (!encodings.empty()) out.put("compression.encodings", encodings);
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
    const std::string index = std::to_string(i / 3);
    compression::EncoderState& state = states_[pair];
    state.residual = in.floats("compression.residual." + index);
    if (in.has("compression.momentum." + index)) state.momentum = in.floats("compression.momentum." + index);
    if (in.has("compression.query." + index)) state.query = in.floats("compression.query." + index);
  }
  if (in.has("compression.encodings")) {
    const auto encodings = in.integers("compression.encodings");
    for (size_t i = 0; i + 2 < encodings.size(); i += 3)
      states_[{int(encodings[i]), int(encodings[i + 1])}].encodings = encodings[i + 2];
  }
}

}  // namespace fedgrid
