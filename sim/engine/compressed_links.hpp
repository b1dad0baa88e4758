#pragma once
// compression.uplink / compression.downlink on the transfer path (docs/guide/compression.md):
// what a model transfer through a codec encodes, what its receiver gets, and what each pair of
// nodes keeps between transfers.
//   reference       per unordered pair: the last model that crossed between the two (either
//                   direction, compressed or not) as its receiver decoded it; the sender can decode its own bytes,
//                   so both ends hold it. A transfer encodes the model minus the reference (the
//                   model itself while there is none, or when the sizes differ) and the
//                   receiver adds the decoded difference to it: FedAvg's uplink sends the local
//                   update, its downlink the change since the last exchange.
//   encoder state   per ordered pair (sender, receiver): the error-feedback residual (topk,
//                   sign, powersgd, dgc), dgc's momentum and count of encodings, powersgd's
//                   warm-started Q; reset when the size changes; a lost transfer gives its values
//                   back to the residual.
//   transfer count  per ordered pair: with the scenario seed, the sender and the receiver, the
//                   seed of the transfer's stochastic rounding (seed stream kCompress).
// The references cost one model per pair that exchanged, held only with compression on. A
// timing-only run holds no values: its transfers carry the codec's shape_bytes(n). A codec that
// reads the tensors' shapes (powersgd) gets the model's layout (models::state_layout).
#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "sim/compression/codec.hpp"
#include "sim/core/model.hpp"

namespace fedgrid {

struct Scenario;
class Node;
class StateWriter;
class StateReader;

// The links exist only under compression.* (the Federation makes them at set-up when a
// direction names a codec): an uncompressed run's sends never reach this code.
class CompressedLinks {
 public:
  // `hospitals`: the federation's, the senders whose updates the server sums (dgc's N).
  CompressedLinks(const Scenario& scenario, int64_t hospitals);
  ~CompressedLinks();
  // Whether a model sent from `from` to `to` goes through a codec: downlink from the server,
  // uplink from a hospital (to the server or to another hospital).
  bool compresses(const Node& from, const Node& to) const;

  // One model transfer through its direction's codec, from its encoding to its arrival.
  struct Crossing {
    int64_t raw_bytes = 0;  // as it would cross uncompressed: payload_bytes()
    int64_t bytes = 0;      // as it crosses: the encoded update plus the message header
    double encode_flops = 0, decode_flops = 0;
    compression::EncodedUpdate encoded;  // empty in a timing-only run
    Model received;                      // the decoded model (a real run)
  };
  // Encodes `model` against the pair's reference, with the sender's state for this receiver
  // (updated), and decodes it as the receiver will.
  Crossing encode(const Node& from, const Node& to, const Model& model);
  // The crossing arrived: its decoded model becomes the pair's reference, which is returned
  // (`sent` itself in a timing-only run, which decodes nothing).
  const Model& arrived(const Node& from, const Node& to, Crossing&& crossing, const Model& sent);
  // The crossing never arrived (faults cut it): its values go back into the sender's residual
  // (restore_undelivered); the reference stays as it was.
  void lost(const Node& from, const Node& to, const Crossing& crossing);
  // A model crossed uncompressed (its direction has no codec) and arrived: with the other
  // direction compressed it becomes the pair's reference, which both ends hold exactly, so an
  // uplink-only codec encodes the local update, not the whole model.
  void arrived_uncompressed(const Node& from, const Node& to, const Model& model);

  // Checkpoints: references, encoder states (residuals, dgc's momentum and encodings,
  // powersgd's Q) and transfer counts.
  void save(StateWriter& out) const;
  void load(const StateReader& in);

 private:
  using Pair = std::pair<int, int>;  // node ids; the server is -1
  const compression::Codec& codec(const Node& from) const;
  const Scenario& scenario_;
  std::unique_ptr<compression::Codec> uplink_, downlink_;  // null: that direction is uncompressed
  std::map<Pair, Model> references_;                      // (lower id, higher id)
  std::map<Pair, compression::EncoderState> states_;      // (sender, receiver)
  std::map<Pair, int64_t> transfers_;                     // (sender, receiver): encodings so far
};

}  // namespace fedgrid
