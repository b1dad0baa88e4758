// timing.* (how simulated time is charged: compute and network models) and faults.* (faults
// in the simulated world, docs/guide/faults.md).
#include "sim/scenario/keys/sections.hpp"

namespace fedgrid::key_sections {

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

void faults_keys(Keys& k) {
  using S = Scenario;
  k.group("faults", "Faults in the simulated world: hospitals offline, crashes, degrading links, deadlines (docs/guide/faults.md)")
      .bind<double>("faults.offline_probability", [](S& s) -> auto& { return s.faults.offline_probability; }, "0",
                    "Probability that a hospital is offline for a whole round (drawn per hospital and round from the seed)",
                    {.min = 0, .max = 1, .max_exclusive = true})
      .bind<std::string>("faults.availability_trace", [](S& s) -> auto& { return s.faults.availability_trace; }, none,
                         "CSV hospital,online_from_s,online_until_s: a listed hospital (name or glob pattern) is online only inside its intervals")
      .bind<std::string>("faults.crash_trace", [](S& s) -> auto& { return s.faults.crash_trace; }, none,
                         "CSV hospital,crash_at_s[,recover_at_s]: the hospital's host goes down at crash_at_s (back at recover_at_s; empty: never)")
      .bind<double>("faults.crash_rate_per_hour", [](S& s) -> auto& { return s.faults.crash_rate_per_hour; }, "0",
                    "Crashes per hospital per simulated hour, at exponential intervals drawn from the seed (at most 3600)",
                    {.min = 0, .max = 3600})
      .bind<double>("faults.recovery_s", [](S& s) -> auto& { return s.faults.recovery_s; }, "0",
                    "Seconds a host stays down after a crash drawn from faults.crash_rate_per_hour (0: back at once, only the job is lost)",
                    {.min = 0})
      .bind<std::string>("faults.link_trace", [](S& s) -> auto& { return s.faults.link_trace; }, none,
                         "CSV hospital,time_s,bandwidth_factor[,latency_s]: from time_s on, the hospital's access links (<name>_up/_down) run at factor x their bandwidth")
      .bind<double>("faults.deadline_s", [](S& s) -> auto& { return s.faults.deadline_s; }, "0",
                    "An update not reported this many seconds after its round began is late and dropped (relays: the visits not done by then) (0: no deadline)",
                    {.min = 0})
      .bind<double>("faults.over_selection", [](S& s) -> auto& { return s.faults.over_selection; }, "0",
                    "Select (1 + this) x the hospitals a round wants and keep the first that report (Bonawitz et al. 2019)",
                    {.min = 0});
}

}  // namespace fedgrid::key_sections
