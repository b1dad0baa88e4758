#pragma once
// timing.tcp.*: TCP under timing.network: ns3, as a current Linux host runs it by default. The
// reasons for each default are in the key reference (sim/scenario/sections/timing_keys.cpp); the
// scenario holds these, sim/network/packet_network.cpp hands them to ns-3.
#include <cstdint>
#include <string>

namespace fedgrid::network {

struct TcpSettings {
  std::string congestion = "cubic";  // cubic | newreno
  bool sack = true;
  int initial_cwnd_segments = 10;
  int mss_bytes = 1448;
  int64_t send_buffer_bytes = 4194304;
  int64_t receive_buffer_bytes = 33554432;
  double min_rto_s = 0.2;
  double initial_rto_s = 1.0;
  double delayed_ack_s = 0.04;
  double queue_s = 0.1;  // each link's queue holds what it sends in this long

  bool operator==(const TcpSettings& o) const {  // (C++17: sim/network compiles with ns-3's headers)
    return congestion == o.congestion && sack == o.sack && initial_cwnd_segments == o.initial_cwnd_segments &&
           mss_bytes == o.mss_bytes && send_buffer_bytes == o.send_buffer_bytes &&
           receive_buffer_bytes == o.receive_buffer_bytes && min_rto_s == o.min_rto_s &&
           initial_rto_s == o.initial_rto_s && delayed_ack_s == o.delayed_ack_s && queue_s == o.queue_s;
  }
};

}  // namespace fedgrid::network
