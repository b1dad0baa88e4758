#include "bench/emulator/records.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace fedgrid::emulator {
namespace fs = std::filesystem;
namespace {

std::string seconds(int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9f", double(ns) / 1e9);
  return buf;
}

struct Row {
  double start, end;
  std::string host, kind, peer;
  int64_t bytes;
  int round;
  std::string line;  // the events.csv line
};

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + path);
  return f;
}

}  // namespace

PartWriter::PartWriter(const std::string& path, int64_t t0_ns) : out_(path, std::ios::trunc), t0_ns_(t0_ns) {
  if (!out_) throw std::runtime_error("cannot write " + path);
}

void PartWriter::event(int64_t start_ns, int64_t end_ns, const std::string& host, const std::string& kind,
                       const std::string& peer, int64_t bytes, double flops, int round) {
  char f[64];
  std::snprintf(f, sizeof f, "%.0f", flops);
  std::lock_guard lock(mutex_);
  out_ << "event," << seconds(start_ns - t0_ns_) << ',' << seconds(end_ns - t0_ns_) << ',' << host << ',' << kind
       << ',' << peer << ',' << bytes << ',' << f << ',' << round << '\n'
       << std::flush;
}

void PartWriter::round_end(int round, int64_t at_ns) {
  std::lock_guard lock(mutex_);
  out_ << "round," << round << ',' << seconds(at_ns - t0_ns_) << '\n' << std::flush;
}

std::vector<std::pair<int, double>> merge_parts(const std::string& dir, const std::string& server) {
  std::vector<Row> rows;
  std::map<int, std::string> round_time;  // as written
  for (const auto& part : fs::directory_iterator(dir + "/parts")) {
    std::ifstream in(part.path());
    for (std::string line; std::getline(in, line);) {
      const auto f = fields(line);
      if (f.size() == 9 && f[0] == "event") {
        rows.push_back({std::stod(f[1]), std::stod(f[2]), f[3], f[4], f[5], std::stoll(f[6]), std::stoi(f[8]),
                        line.substr(6)});
      } else if (f.size() == 3 && f[0] == "round") {
        if (!round_time.emplace(std::stoi(f[1]), f[2]).second)
          throw std::runtime_error("round " + f[1] + " ended twice in " + part.path().string());
      } else {
        throw std::runtime_error("malformed line in " + part.path().string() + ": " + line);
      }
    }
  }
  // Round r holds what ends after round r - 1's end, up to and including its own.
  std::vector<double> ends;
  for (const auto& [round, time] : round_time) ends.push_back(std::stod(time));
  const int last = round_time.empty() ? 0 : round_time.rbegin()->first;
  std::vector<Row> kept;
  for (auto& r : rows) {
    if (r.round == kPlacedByTime) {
      r.round = 1 + int(std::lower_bound(ends.begin(), ends.end(), r.end) - ends.begin());
      if (r.round > last) continue;  // after the run's last round: dropped, as fedgrid drops it
      r.line = r.line.substr(0, r.line.rfind(',') + 1) + std::to_string(r.round);
    }
    kept.push_back(std::move(r));
  }
  rows = std::move(kept);
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.round, a.start, a.end, a.host, a.kind) < std::tie(b.round, b.start, b.end, b.host, b.kind);
  });
  auto events = open_out(dir + "/events.csv");
  events << "start_s,end_s,host,kind,peer,bytes,flops,round\n";
  for (const auto& r : rows) events << r.line << '\n';

  auto rounds = open_out(dir + "/rounds.csv");
  rounds << "round,sim_time_s,bytes_up,bytes_down,bytes_peer,messages\n";
  std::vector<std::pair<int, double>> out;
  for (const auto& [round, time] : round_time) {
    int64_t up = 0, down = 0, peer = 0, messages = 0;
    for (const auto& r : rows) {
      if (r.round != round || r.kind != "send") continue;
      (r.peer == server ? up : r.host == server ? down : peer) += r.bytes;
      ++messages;
    }
    rounds << round << ',' << time << ',' << up << ',' << down << ',' << peer << ',' << messages << '\n';
    out.emplace_back(round, std::stod(time));
  }
  fs::remove_all(dir + "/parts");
  return out;
}

}  // namespace fedgrid::emulator
