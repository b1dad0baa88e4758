#include "sim/network/packet_network.hpp"

#include <simgrid/s4u.hpp>

#include <ns3/core-module.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-routing-helper.h>
#include <ns3/ipv4-routing-protocol.h>
#include <ns3/map-scheduler.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue.h>
#include <ns3/tcp-socket-factory.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace sg4 = simgrid::s4u;

namespace fedgrid::network {
namespace {

// ns-3's default event list with its next event readable: the daemon sleeps until it.
class PeekScheduler : public ns3::MapScheduler {
 public:
  static inline PeekScheduler* current = nullptr;
  static ns3::TypeId GetTypeId() {
    static ns3::TypeId tid = ns3::TypeId("fedgrid::PeekScheduler")
                                 .SetParent<ns3::MapScheduler>()
                                 .SetGroupName("Core")
                                 .AddConstructor<PeekScheduler>();
    return tid;
  }
  PeekScheduler() { current = this; }
  ~PeekScheduler() override {
    if (current == this) current = nullptr;
  }
};

// Addresses by arithmetic: link k (host k to the router) is 10.0.0.0 + 4k / 30, the host .1, the
// router .2. The router forwards by computing the link from the destination (O(1) per packet,
// where a routing table of N hosts would be searched per packet); a host sends everything to the
// router.
constexpr uint32_t kBase = 0x0A000000;
uint32_t host_address(uint32_t k) { return kBase + 4 * k + 1; }
uint32_t router_address(uint32_t k) { return kBase + 4 * k + 2; }
constexpr uint16_t kPort = 9;

class StarRouting : public ns3::Ipv4RoutingProtocol {
 public:
  // link: the host's link index (a host), or -1 (the router, which has one interface per link,
  // interface k + 1 for link k after the loopback).
  explicit StarRouting(int64_t link, uint32_t links) : link_(link), links_(links) {}

  ns3::Ptr<ns3::Ipv4Route> RouteOutput(ns3::Ptr<ns3::Packet>, const ns3::Ipv4Header& header, ns3::Ptr<ns3::NetDevice>,
                                       ns3::Socket::SocketErrno& sockerr) override {
    if (link_ < 0) {
      sockerr = ns3::Socket::ERROR_NOROUTETOHOST;
      return nullptr;
    }
    sockerr = ns3::Socket::ERROR_NOTERROR;
    auto route = ns3::Create<ns3::Ipv4Route>();
    route->SetDestination(header.GetDestination());
    route->SetGateway(ns3::Ipv4Address(router_address(uint32_t(link_))));
    route->SetSource(ns3::Ipv4Address(host_address(uint32_t(link_))));
    route->SetOutputDevice(ipv4_->GetNetDevice(1));
    return route;
  }

  bool RouteInput(ns3::Ptr<const ns3::Packet> p, const ns3::Ipv4Header& header, ns3::Ptr<const ns3::NetDevice> idev,
                  UnicastForwardCallback ucb, MulticastForwardCallback, LocalDeliverCallback lcb,
                  ErrorCallback) override {
    const uint32_t dest = header.GetDestination().Get();
    if (link_ >= 0) {
      if (dest != host_address(uint32_t(link_))) return false;
      lcb(p, header, ipv4_->GetInterfaceForDevice(idev));
      return true;
    }
    const uint32_t k = (dest - kBase) / 4;
    if (dest < kBase || k >= links_ || dest != host_address(k)) return false;
    auto route = ns3::Create<ns3::Ipv4Route>();
    route->SetDestination(header.GetDestination());
    route->SetGateway(header.GetDestination());
    route->SetSource(ns3::Ipv4Address(router_address(k)));
    route->SetOutputDevice(ipv4_->GetNetDevice(k + 1));
    ucb(route, p, header);
    return true;
  }

  void NotifyInterfaceUp(uint32_t) override {}
  void NotifyInterfaceDown(uint32_t) override {}
  void NotifyAddAddress(uint32_t, ns3::Ipv4InterfaceAddress) override {}
  void NotifyRemoveAddress(uint32_t, ns3::Ipv4InterfaceAddress) override {}
  void SetIpv4(ns3::Ptr<ns3::Ipv4> ipv4) override { ipv4_ = ipv4; }
  void PrintRoutingTable(ns3::Ptr<ns3::OutputStreamWrapper>, ns3::Time::Unit) const override {}

 private:
  int64_t link_;
  uint32_t links_;
  ns3::Ptr<ns3::Ipv4> ipv4_;
};

class StarRoutingHelper : public ns3::Ipv4RoutingHelper {
 public:
  StarRoutingHelper(uint32_t router_id, uint32_t links) : router_id_(router_id), links_(links) {}
  StarRoutingHelper* Copy() const override { return new StarRoutingHelper(*this); }
  ns3::Ptr<ns3::Ipv4RoutingProtocol> Create(ns3::Ptr<ns3::Node> node) const override {
    const int64_t link = node->GetId() == router_id_ ? -1 : int64_t(node->GetId()) - router_id_ - 1;
    return ns3::Create<StarRouting>(link, links_);
  }

 private:
  uint32_t router_id_, links_;
};

int64_t ticks(double seconds) { return std::llround(seconds * 1e9); }  // ns-3's default resolution: 1 ns

std::string congestion_type(const std::string& name) {
  if (name == "cubic") return "ns3::TcpCubic";
  if (name == "newreno") return "ns3::TcpNewReno";
  throw std::invalid_argument("unknown TCP congestion control '" + name + "' (cubic | newreno)");
}

// ns-3's socket defaults set to the scenario's before any socket exists.
void configure_tcp(const TcpSettings& tcp) {
  using namespace ns3;
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(congestion_type(tcp.congestion))));
  // Linux recovers with proportional rate reduction (RFC 6937) since 3.2.
  Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TypeId::LookupByName("ns3::TcpPrrRecovery")));
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(tcp.mss_bytes));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(tcp.initial_cwnd_segments));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(uint32_t(tcp.send_buffer_bytes)));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(uint32_t(tcp.receive_buffer_bytes)));
  Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
  Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(tcp.delayed_ack_s)));
  Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(tcp.initial_rto_s)));
  Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(tcp.min_rto_s)));
  Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(tcp.sack));
  Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
  Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
  // TIME_WAIT holds a port, not the link: short, so that a host opening thousands of
  // connections (a server's broadcasts, round after round) never runs out of ports.
  Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(0.5));
}

}  // namespace

uint32_t PacketNetwork::queue_bytes(double rate_bps, const TcpSettings& tcp) {
  const double segment = tcp.mss_bytes + 52.0;  // with IP, TCP and timestamp headers
  return uint32_t(std::max(rate_bps / 8 * tcp.queue_s, 4 * segment));
}

struct PacketNetwork::Impl {
  struct Flow {
    int from = 0, to = 0;
    int64_t total = 0, written = 0, received = 0;
    sg4::SemaphorePtr done;
  };

  TcpSettings tcp;
  ns3::Ptr<ns3::Node> router;
  std::vector<ns3::Ptr<ns3::Node>> nodes;
  std::vector<ns3::Ptr<ns3::Socket>> listeners;  // by host, made on its first incoming transfer
  std::unordered_map<ns3::Socket*, Flow*> by_sender, by_receiver;
  std::unordered_map<uint64_t, Flow*> by_endpoint;  // (sender address, port) -> flow, until accepted
  std::vector<Flow*> pending;                        // asked for, not yet in ns-3
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr wake;
  PacketStats stats;

  static uint64_t endpoint(uint32_t address, uint16_t port) { return uint64_t(address) << 16 | port; }

  void build(const std::vector<Attachment>& hosts) {
    using namespace ns3;
    Simulator::SetScheduler(ObjectFactory(PeekScheduler::GetTypeId().GetName()));
    configure_tcp(tcp);
    router = CreateObject<Node>();
    for (size_t i = 0; i < hosts.size(); ++i) nodes.push_back(CreateObject<Node>());
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    stack.SetRoutingHelper(StarRoutingHelper(router->GetId(), uint32_t(hosts.size())));
    stack.Install(router);
    for (auto& n : nodes) stack.Install(n);
    PointToPointHelper p2p;
    auto router_ip = router->GetObject<Ipv4>();
    for (size_t k = 0; k < hosts.size(); ++k) {
      const Attachment& a = hosts[k];
      p2p.SetChannelAttribute("Delay", TimeValue(Seconds(a.delay_s)));
      NetDeviceContainer devices = p2p.Install(nodes[k], router);
      link_direction(devices.Get(0), a.uplink_bps);
      link_direction(devices.Get(1), a.downlink_bps);
      address(nodes[k]->GetObject<Ipv4>(), devices.Get(0), host_address(uint32_t(k)));
      address(router_ip, devices.Get(1), router_address(uint32_t(k)));
    }
    listeners.resize(hosts.size());
  }

  void link_direction(ns3::Ptr<ns3::NetDevice> device, double rate_bps) {
    auto p2p = ns3::DynamicCast<ns3::PointToPointNetDevice>(device);
    p2p->SetDataRate(ns3::DataRate(uint64_t(std::llround(rate_bps))));
    p2p->GetQueue()->SetMaxSize(ns3::QueueSize(ns3::QueueSizeUnit::BYTES, queue_bytes(rate_bps, tcp)));
    p2p->TraceConnectWithoutContext("MacTxDrop", ns3::MakeCallback(&Impl::dropped, this));
    p2p->GetQueue()->TraceConnectWithoutContext("Drop", ns3::MakeCallback(&Impl::dropped, this));
  }
  void dropped(ns3::Ptr<const ns3::Packet>) { ++stats.packets_dropped; }

  static void address(ns3::Ptr<ns3::Ipv4> ip, ns3::Ptr<ns3::NetDevice> device, uint32_t addr) {
    const uint32_t i = ip->AddInterface(device);
    ip->AddAddress(i, ns3::Ipv4InterfaceAddress(ns3::Ipv4Address(addr), ns3::Ipv4Mask("255.255.255.252")));
    ip->SetUp(i);
  }

  // --- ns-3 side: one connection per transfer ---

  void start(Flow* f) {
    using namespace ns3;
    if (!listeners[f->to]) {
      auto l = Socket::CreateSocket(nodes[f->to], TcpSocketFactory::GetTypeId());
      l->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
      l->Listen();
      l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(), MakeCallback(&Impl::accepted, this));
      listeners[f->to] = l;
    }
    auto s = Socket::CreateSocket(nodes[f->from], TcpSocketFactory::GetTypeId());
    if (s->Bind() != 0)
      throw std::runtime_error("ns-3: host " + std::to_string(f->from) + " has no free port for another connection");
    Address local;
    s->GetSockName(local);
    by_endpoint[endpoint(host_address(uint32_t(f->from)), InetSocketAddress::ConvertFrom(local).GetPort())] = f;
    by_sender[PeekPointer(s)] = f;
    s->SetConnectCallback(MakeCallback(&Impl::connected, this), MakeCallback(&Impl::refused, this));
    s->SetSendCallback(MakeCallback(&Impl::writable, this));
    s->Connect(InetSocketAddress(Ipv4Address(host_address(uint32_t(f->to))), kPort));
    ++stats.transfers;
  }

  void connected(ns3::Ptr<ns3::Socket> s) { writable(s, 0); }
  void refused(ns3::Ptr<ns3::Socket>) { throw std::runtime_error("ns-3: a transfer's connection was refused"); }

  // Fills the send buffer; closes (a FIN after the data) once everything is written.
  void writable(ns3::Ptr<ns3::Socket> s, uint32_t) {
    auto it = by_sender.find(PeekPointer(s));
    if (it == by_sender.end()) return;
    Flow* f = it->second;
    while (f->written < f->total) {
      const uint32_t room = s->GetTxAvailable();
      if (room == 0) return;
      const int sent = s->Send(ns3::Create<ns3::Packet>(uint32_t(std::min<int64_t>(room, f->total - f->written))));
      if (sent <= 0) return;
      f->written += sent;
    }
    s->Close();  // once: the flow leaves by_sender, so later callbacks find nothing to write
    by_sender.erase(it);
  }

  void accepted(ns3::Ptr<ns3::Socket> s, const ns3::Address& from) {
    const auto peer = ns3::InetSocketAddress::ConvertFrom(from);
    auto it = by_endpoint.find(endpoint(peer.GetIpv4().Get(), peer.GetPort()));
    if (it == by_endpoint.end()) return;
    by_receiver[PeekPointer(s)] = it->second;
    by_endpoint.erase(it);
    s->SetRecvCallback(ns3::MakeCallback(&Impl::readable, this));
  }

  // The transfer ends when the application has read its last byte.
  void readable(ns3::Ptr<ns3::Socket> s) {
    auto it = by_receiver.find(PeekPointer(s));
    if (it == by_receiver.end()) return;
    Flow* f = it->second;
    while (auto p = s->Recv()) f->received += p->GetSize();
    if (f->received < f->total) return;
    by_receiver.erase(it);
    s->Close();
    f->done->release();
  }

  // --- the SimGrid side ---

  static int64_t next_event() {
    const PeekScheduler* sched = PeekScheduler::current;
    return sched == nullptr || sched->IsEmpty() ? -1 : int64_t(sched->PeekNext().key.m_ts);
  }

  // Runs every ns-3 event due by `target` (ticks).
  static void advance(int64_t target) {
    for (int64_t next = next_event(); next >= 0 && next <= target; next = next_event()) {
      ns3::Simulator::Stop(ns3::TimeStep(target) - ns3::Simulator::Now());
      ns3::Simulator::Run();
    }
  }

  void run() {
    std::unique_lock lock(*mutex);
    for (;;) {
      if (pending.empty()) {
        const int64_t next = next_event();
        if (next < 0) wake->wait(lock);
        else wake->wait_until(lock, double(next) * 1e-9);
      }
      ++stats.wakeups;
      const int64_t now = ticks(sg4::Engine::get_clock());
      advance(now);
      for (Flow* f : pending)
        ns3::Simulator::Schedule(ns3::TimeStep(now) - ns3::Simulator::Now(), &Impl::start, this, f);
      pending.clear();
      advance(now);
    }
  }
};

PacketNetwork::PacketNetwork(const std::vector<Attachment>& hosts, const TcpSettings& tcp, sg4::Host* daemon_host)
    : impl_(std::make_unique<Impl>()) {
  congestion_type(tcp.congestion);  // refuses an unknown name before ns-3 is touched
  impl_->tcp = tcp;
  impl_->build(hosts);
  impl_->mutex = sg4::Mutex::create();
  impl_->wake = sg4::ConditionVariable::create();
  sg4::Actor::create("packet-network", daemon_host, [this] { impl_->run(); })->daemonize();
}

PacketNetwork::~PacketNetwork() { ns3::Simulator::Destroy(); }

void PacketNetwork::transfer(int from, int to, int64_t bytes) {
  if (bytes <= 0 || from == to) return;  // nothing crosses a link
  Impl::Flow flow;
  flow.from = from, flow.to = to, flow.total = bytes, flow.done = sg4::Semaphore::create(0);
  {
    std::unique_lock lock(*impl_->mutex);
    impl_->pending.push_back(&flow);
    impl_->wake->notify_one();
  }
  flow.done->acquire();
}

PacketStats PacketNetwork::stats() const {
  PacketStats s = impl_->stats;
  s.events = ns3::Simulator::GetEventCount();
  return s;
}

}  // namespace fedgrid::network
