#pragma once
// A model message as it crosses the emulated network: a fixed header of fedgrid's
// models::kPayloadHeaderBytes, then the flat float32 state. Its size is therefore exactly what
// fedgrid charges for the same model (Model::payload_bytes(): values * 4 + 64).
#include <cstdint>
#include <vector>

#include "bench/emulator/links.hpp"
#include "bench/emulator/pacer.hpp"
#include "models/model_spec.hpp"

namespace fedgrid::emulator {

struct WireHeader {
  char magic[8] = {'F', 'G', 'E', 'M', 'U', '0', '1', '\0'};
  int32_t from = -1, to = -1;  // host ids (0 the server, 1.. the hospitals)
  int32_t round = 0;           // the round the message counts toward (fedgrid's events.csv)
  int32_t reserved = 0;
  int64_t values = 0;          // float32 values that follow
  int64_t samples = 0;         // the sender's training samples (FedAvg's weight), 0 from the server
  int64_t start_ns = 0;        // when the sender began the transfer (the shared clock)
  double train_loss = 0;       // the sender's last training loss (for the log), 0 from the server
  int64_t spare = 0;
};
static_assert(sizeof(WireHeader) == models::kPayloadHeaderBytes, "the header is fedgrid's payload header");

inline int64_t message_bytes(int64_t values) { return values * 4 + int64_t(sizeof(WireHeader)); }

struct Message {
  WireHeader header;
  std::vector<float> weights;
  int64_t end_ns = 0;  // when its last byte arrived
  int64_t bytes() const { return message_bytes(header.values); }
};

// Connects to the receiver's port and sends header + weights, paced along `route` from
// header.start_ns (set by the caller when the transfer begins).
void send_message(int port, const WireHeader& header, const std::vector<float>& weights, const Route& route,
                  LinkTable& links);

// Reads one message from a connection; false when the peer closed it before sending any.
// Throws on a malformed or truncated message.
bool receive_message(int fd, Message& out);

}  // namespace fedgrid::emulator
