// timing.*: its keys and its cross-key rules.
#include "sim/scenario/sections/parts.hpp"

namespace fedgrid::sections {

void tcp_keys(Keys& k);

void timing_keys(Keys& k) {
  using S = Scenario;
  k.group("timing", "How simulated time is charged");
  k.bind_mode<ComputeModel>("timing.compute", [](S& s) -> auto& { return s.timing.compute; }, "flops",
                            "Compute cost model: flops (analytic FLOPs / host speed) | profile (seconds per step measured by `fedgrid calibrate`)")
      .bind<std::string>("timing.profile", [](S& s) -> auto& { return s.timing.profile; }, none,
                         "timing.compute profile: the profile CSV, or a folder of them (one per machine)");
  k.bind_mode<NetworkModel>("timing.network", [](S& s) -> auto& { return s.timing.network; }, "default",
                            "default (SimGrid LV08) | cm02 (exact latency + size / bandwidth) | fluid (cm02's sharing of the star's server links, computed incrementally: 100,000 distinct hospitals; docs/performance.md, \"Timing-only runs and cohorts\") | ns3 (every transfer a TCP connection simulated packet by packet by ns-3, timing.tcp.*; docs/guide/time-model.md, \"Packet level\")")
      .bind<bool>("timing.cohorts", [](S& s) -> auto& { return s.timing.cohorts; }, "false",
                  "timing-only + cm02: identical hospitals (tier, overrides, samples) act as one representative whose flows count once per member on shared links");
  tcp_keys(k);
  k.group("timing.lv08", "SimGrid's LV08 factors under timing.network: default (its own values by default)")
      .bind<double>("timing.lv08.latency_factor", [](S& s) -> auto& { return s.timing.lv08.latency_factor; }, "13.01",
                    "Each route's latency is charged this many times (SimGrid's 13.01 fits rounds of model-sized payloads to ns3 within +1.1% in median; 4 fits messages under 1 MB within +2.9%; docs/guide/time-model.md, \"Which network model\")",
                    {.min = 0, .min_exclusive = true})
      .bind<double>("timing.lv08.bandwidth_factor", [](S& s) -> auto& { return s.timing.lv08.bandwidth_factor; }, "0.97",
                    "A flow gets this share of a link's bandwidth (headers; TCP over a 1500-byte MTU carries 0.964 of it as payload)",
                    {.min = 0, .max = 1, .min_exclusive = true})
      .bind<double>("timing.lv08.weight_s", [](S& s) -> auto& { return s.timing.lv08.weight_s; }, "20537",
                    "RTT unfairness: a flow's share weighs its route's latency plus this over its bandwidth (SimGrid's weight-S)",
                    {.min = 0});
}

// timing.tcp.*: ns-3's TCP set as a current Linux host runs it (Linux 6.x defaults), each with
// the reason for its default.
void tcp_keys(Keys& k) {
  using S = Scenario;
  const network::TcpSettings d;
  auto tcp = [](S& s) -> network::TcpSettings& { return s.timing.tcp; };
  k.group("timing.tcp", "TCP under timing.network: ns3, as a current Linux host runs it by default")
      .bind<std::string>("timing.tcp.congestion", [tcp](S& s) -> auto& { return tcp(s).congestion; }, d.congestion,
                         "Congestion control: cubic (Linux's default since 2.6.19, with HyStart) | newreno (BBR is left out: ns-3 3.37's took 142 s for ten 2.3 MB flows a 20 Mbit/s link carries in 9.5 s)",
                         {.allowed = {"cubic", "newreno"}})
      .bind<bool>("timing.tcp.sack", [tcp](S& s) -> auto& { return tcp(s).sack; }, d.sack ? "true" : "false",
                  "Selective acknowledgements (RFC 2018; Linux: net.ipv4.tcp_sack = 1)")
      .bind<int>("timing.tcp.initial_cwnd_segments", [tcp](S& s) -> auto& { return tcp(s).initial_cwnd_segments; },
                 std::to_string(d.initial_cwnd_segments),
                 "Initial congestion window in segments (RFC 6928; Linux's since 2.6.39)", {.min = 1, .max = 1000})
      .bind<int>("timing.tcp.mss_bytes", [tcp](S& s) -> auto& { return tcp(s).mss_bytes; }, std::to_string(d.mss_bytes),
                 "Segment payload: a 1500-byte Ethernet MTU less IPv4 (20), TCP (20) and timestamp option (12) headers",
                 {.min = 500, .max = 8948})
      .bind<int64_t>("timing.tcp.send_buffer_bytes", [tcp](S& s) -> auto& { return tcp(s).send_buffer_bytes; },
                     std::to_string(d.send_buffer_bytes),
                     "Send buffer: Linux autotuning's ceiling (net.ipv4.tcp_wmem max, 4 MiB); ns-3 does not autotune, so the ceiling is set from the start",
                     {.min = 16384, .max = 1073741824})
      .bind<int64_t>("timing.tcp.receive_buffer_bytes", [tcp](S& s) -> auto& { return tcp(s).receive_buffer_bytes; },
                     std::to_string(d.receive_buffer_bytes),
                     "Receive buffer: Linux autotuning's ceiling (net.ipv4.tcp_rmem max, 32 MiB on Linux 6.18), so that the send buffer bounds the flight as on Linux; more than twice the send buffer (ns-3 3.37 crashes when the flight meets the receive window exactly, its bug 991)",
                     {.min = 16384, .max = 1073741824})
      .bind<double>("timing.tcp.min_rto_s", [tcp](S& s) -> auto& { return tcp(s).min_rto_s; }, "0.2",
                    "Minimum retransmission timeout (Linux's TCP_RTO_MIN, 200 ms; ns-3's own is 1 s)", {.min = 0.001, .max = 60})
      .bind<double>("timing.tcp.initial_rto_s", [tcp](S& s) -> auto& { return tcp(s).initial_rto_s; }, "1",
                    "Retransmission timeout of a lost SYN (RFC 6298's 1 s, Linux's TCP_TIMEOUT_INIT; ns-3's own is 3 s)",
                    {.min = 0.001, .max = 60})
      .bind<double>("timing.tcp.delayed_ack_s", [tcp](S& s) -> auto& { return tcp(s).delayed_ack_s; }, "0.04",
                    "Delayed-ACK timeout, an ACK every second segment otherwise (Linux's TCP_ATO_MIN, 40 ms; ns-3's own is 200 ms)",
                    {.min = 0, .max = 1})
      .bind<double>("timing.tcp.queue_s", [tcp](S& s) -> auto& { return tcp(s).queue_s; }, "0.1",
                    "Each link's drop-tail queue holds what the link sends in this long, at least 4 segments: one bandwidth-delay product at a 100 ms round trip (the rule of thumb for access routers' buffers, Villamizar & Song 1994)",
                    {.min = 0.0001, .max = 10});
}

Rules timing_compute_rules() {
  using S = const Scenario&;
  return {
      {{"timing.profile", "timing.compute"},
       [](S s) { return s.timing.compute == ComputeModel::Profile && s.timing.profile.empty(); },
       says("timing.compute: profile needs the profile (`fedgrid calibrate --out FILE` writes one)")},
      {{"timing.profile", "timing.compute"},
       [](S s) { return s.timing.compute != ComputeModel::Profile && !s.timing.profile.empty(); },
       says("is read only with timing.compute: profile")},
  };
}

Rules timing_cohort_rules() {
  using S = const Scenario&;
  return {
      {{"timing.cohorts", "training.mode"}, [](S s) { return s.timing.cohorts && !s.training.timing_only; },
       says(kTimingOnly)},
      {{"timing.cohorts", "timing.network"}, [](S s) { return s.timing.cohorts && s.timing.network != NetworkModel::Cm02; },
       says("needs timing.network: cm02 (under LV08 a representative's RTT weight would differ from its members')")},
  };
}

Rules timing_network_rules() {
  using S = const Scenario&;
  return {
      {{"timing.cohorts", "platform.xml"}, [](S s) { return s.timing.cohorts && !s.platform.xml.empty(); },
       says("works on the built-in star platform, not on platform.xml")},
      {{"timing.cohorts", "faults"}, [](S s) { return s.timing.cohorts && s.faults.any(); },
       says("cannot be combined with faults.*: a fault makes a cohort's members differ")},
      {{"timing.network", "platform.xml"}, [](S s) { return s.timing.network == NetworkModel::Fluid && !s.platform.xml.empty(); },
       says("fluid shares the built-in star's server links; a platform.xml has its own routes (use cm02)")},
      {{"timing.network", "timing.cohorts"}, [](S s) { return s.timing.network == NetworkModel::Fluid && s.timing.cohorts; },
       says("fluid and timing.cohorts are two ways to scale: choose one")},
      {{"timing.network", "faults"}, [](S s) { return s.timing.network == NetworkModel::Fluid && s.faults.any(); },
       says("fluid cannot cut a transfer half way, as faults.* need (use cm02)")},
      // ns3 builds its own network from the generated star's figures (sim/network/packet_network.hpp).
      {{"timing.network", "platform.xml"}, [](S s) { return s.timing.network == NetworkModel::Ns3 && !s.platform.xml.empty(); },
       says("ns3 builds the generated star packet by packet; a platform.xml's zones and routes are SimGrid's alone (use default or cm02)")},
      {{"timing.lv08", "timing.network"},
       [](S s) { return s.timing.network != NetworkModel::Lv08 && !(s.timing.lv08 == Scenario::Timing::Lv08{}); },
       says("is read only with timing.network: default (LV08)")},
      {{"timing.tcp", "timing.network"},
       [](S s) { return s.timing.network != NetworkModel::Ns3 && !(s.timing.tcp == network::TcpSettings{}); },
       says("is read only with timing.network: ns3 (the flow models have no TCP)")},
      {{"timing.tcp.receive_buffer_bytes", "timing.tcp.send_buffer_bytes"},
       [](S s) { return s.timing.tcp.receive_buffer_bytes <= 2 * s.timing.tcp.send_buffer_bytes; },
       says("must exceed twice timing.tcp.send_buffer_bytes: then the receive window (less the out-of-order bytes "
            "it holds, at most a send buffer) never meets the flight, where ns-3 3.37 sends an empty segment and "
            "crashes (its bug 991, fixed after 3.37)")},
      {{"timing.network", "faults"}, [](S s) { return s.timing.network == NetworkModel::Ns3 && s.faults.any(); },
       says("ns3 cannot yet cut a connection half way or change a link's rate mid-run, as faults.* need (use cm02)")},
  };
}

// A cohort's representative stands for k hospitals on the network, but the server would
// encode and decode once for all of them.
Rules timing_compression_rules() {
  using S = const Scenario&;
  return {
      {{"timing.cohorts", "compression"}, [](S s) { return s.timing.cohorts && s.compression.any(); },
       says("cannot be combined with compression.*: the server encodes and decodes each member's model, "
            "which a cohort's one representative does not charge")},
  };
}

}  // namespace fedgrid::sections
