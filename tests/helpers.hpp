#pragma once
// Small helpers shared by the tests: temp dirs, files, running the fedgrid binary.
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include <gtest/gtest.h>

namespace fedgrid::test {

// The source folder and the fedgrid binary under test (tests/paths.cpp: the only test file
// compiled with their paths, so that the other objects do not depend on where the clone is).
const char* source_dir();
const char* fedgrid_binary();

// Removes every directory handed out by temp_dir when the test process exits.
struct TempDirs {
  std::vector<std::filesystem::path> dirs;
  ~TempDirs() {
    std::error_code ec;
    for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
  }
};

inline std::string temp_dir(const std::string& tag) {
  static TempDirs made;
  auto dir = std::filesystem::temp_directory_path() /
             ("fedgrid-test-" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  made.dirs.push_back(dir);
  return dir.string();
}

inline void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `launcher` runs before the binary (e.g. "taskset -c 0").
inline CommandResult run_fedgrid(const std::string& args, const std::string& launcher = "") {
  const std::string cmd = launcher + (launcher.empty() ? "" : " ") + fedgrid_binary() + " " + args + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs `yaml` (+ --set overrides) into a fresh directory; returns the directory.
inline std::string run_ok(const std::string& tag, const std::string& yaml, const std::string& sets = "") {
  const std::string dir = temp_dir(tag);
  write_file(dir + "/s.yaml", yaml);
  auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out " + sets);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir + "/out";
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

// Runs DIR/s.yaml (+ --set overrides) into DIR/OUT, replacing an earlier call's outputs there;
// the lines of its hospitals.csv, header first (none when the run failed, which is reported).
inline std::vector<std::string> hospital_rows(const std::string& dir, const std::string& sets = "",
                                              const std::string& out = "out") {
  const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/" + out + " --overwrite " + sets);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? lines(read_file(dir + "/" + out + "/hospitals.csv")) : std::vector<std::string>{};
}

inline std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string c; std::getline(ss, c, ',');) out.push_back(c);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

// A CSV file of a run (rounds.csv, hospitals.csv) as rows of column -> cell.
inline std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  const auto all = lines(read_file(path));
  std::vector<std::map<std::string, std::string>> rows;
  if (all.empty()) return rows;
  const auto header = cells(all.front());
  for (size_t i = 1; i < all.size(); ++i) {
    const auto row = cells(all[i]);
    auto& r = rows.emplace_back();
    for (size_t c = 0; c < header.size() && c < row.size(); ++c) r[header[c]] = row[c];
  }
  return rows;
}

// One row of a run's events.csv, in its column order.
struct Event {
  double start = 0, end = 0;
  std::string host, kind, peer;
  int64_t bytes = 0;
  double flops = 0;
  int round = 0;
};

// Every event of the run in `dir` (events.csv without its header).
inline std::vector<Event> events(const std::string& dir) {
  std::vector<Event> out;
  const auto rows = lines(read_file(dir + "/events.csv"));
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = cells(rows[i]);
    out.push_back({std::stod(c.at(0)), std::stod(c.at(1)), c.at(2), c.at(3), c.at(4), std::stoll(c.at(5)),
                   std::stod(c.at(6)), std::stoi(c.at(7))});
  }
  return out;
}

// Runs the scenario at DIR/s.yaml into DIR/whole, then into DIR/killed killed after round
// `crash_round` and resumed there (`sets` must ask for checkpoints): the four outputs must be
// the uninterrupted run's bytes.
inline void expect_resume_gives_same_bytes(const std::string& dir, const std::string& sets, int crash_round = 3) {
  const auto whole = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/whole " + sets);
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const auto killed = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/killed " + sets,
                                  "FEDGRID_CRASH_AT=round-reported:" + std::to_string(crash_round));
  EXPECT_NE(killed.exit_code, 0) << killed.output;
  const auto resumed = run_fedgrid("resume " + dir + "/killed --log-level warn");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"})
    EXPECT_EQ(read_file(dir + "/whole/" + f), read_file(dir + "/killed/" + f)) << f;
}

// Runs `yaml` (+ --set overrides) and expects bad input: exit code 2 and `expected` in the output.
inline void expect_run_input_error(const std::string& tag, const std::string& yaml, const std::string& sets,
                                   const std::string& expected) {
  const std::string dir = temp_dir(tag);
  write_file(dir + "/s.yaml", yaml);
  auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out " + sets);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(expected), std::string::npos) << "missing '" << expected << "' in\n" << r.output;
}

// A generated reference, docs/reference/<what>.md, is what `fedgrid list <what>` prints: its
// one fenced block, from a line "```" to the next, byte for byte (keys.md, metrics.md).
inline void expect_reference_is_listed(const std::string& what) {
  const std::string file = std::string(source_dir()) + "/docs/reference/" + what + ".md";
  const std::string reference = read_file(file);
  const auto listed = run_fedgrid("list " + what);
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  const size_t open = reference.find("\n```\n");
  ASSERT_NE(open, std::string::npos) << file << " has no fenced block";
  const size_t from = open + 5, close = reference.find("\n```", from - 1);
  ASSERT_NE(close, std::string::npos) << file << ": the fenced block is not closed";
  EXPECT_EQ(reference.substr(from, close + 1 - from), listed.output)
      << file << " differs from `build/fedgrid list " << what
      << "`: regenerate its block with the command at the top of docs/reference/" << what << ".md";
}

// A small, fast federation on synthetic data: the base most tests override.
inline std::string tiny_scenario(const std::string& name, const std::string& extra = "") {
  return "name: " + name + R"(
seed: 7
platform:
  hospitals:
    - {count: 2, tier: weak}
    - {count: 2, tier: medium}
    - {count: 2, tier: strong}
data:
  dataset: synthetic
  partition: {scheme: dirichlet, beta: 1.0}
  synthetic: {train_samples: 1200, test_samples: 300, height: 12, width: 12}
model: {arch: mlp}
training: {lr: 0.05, batch_size: 16}
stop: {rounds: 3}
)" + extra;
}

}  // namespace fedgrid::test
