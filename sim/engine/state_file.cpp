#include "sim/engine/state_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/core/input_error.hpp"
#include "sim/engine/crash_points.hpp"

namespace fedgrid {
namespace {

constexpr char kMagic[8] = {'F', 'G', 'S', 'T', 'A', 'T', 'E', '1'};
enum Type : char { kInt = 'i', kReal = 'd', kText = 's', kFloats = 'f', kReals = 'D', kInts = 'I' };

// FNV-1a, 64 bits: enough to tell a damaged file from a whole one (not an adversary).
uint64_t checksum(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

void append(std::string& out, const void* data, size_t bytes) {
  out.append(static_cast<const char*>(data), bytes);
}

template <class T>
T take(const std::string& in, size_t& at, const std::string& path) {
  T v;
  if (at + sizeof(T) > in.size()) throw InputError(path, 0, "", "checkpoint file is truncated");
  std::memcpy(&v, in.data() + at, sizeof(T));
  at += sizeof(T);
  return v;
}

template <class T>
std::vector<T> as_vector(const std::string& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

void fsync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) throw std::runtime_error("cannot open " + path + " to flush it: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw std::runtime_error("cannot flush " + path + ": " + std::strerror(errno));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  fsync_path(tmp, O_RDONLY);
  crash_point("checkpoint-renaming");
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
  // The rename itself is durable once the folder is flushed.
  const auto dir = std::filesystem::path(path).parent_path();
  fsync_path(dir.empty() ? "." : dir.string(), O_RDONLY | O_DIRECTORY);
}

void StateWriter::raw(const std::string& name, char type, const void* data, size_t bytes) {
  if (!names_.emplace(name, type).second) throw std::logic_error("checkpoint value '" + name + "' put twice");
  const uint32_t name_size = uint32_t(name.size());
  const uint64_t size = bytes;
  append(body_, &name_size, sizeof name_size);
  body_ += name;
  body_ += type;
  append(body_, &size, sizeof size);
  append(body_, data, bytes);
}

void StateWriter::put(const std::string& name, int64_t v) { raw(name, kInt, &v, sizeof v); }
void StateWriter::put(const std::string& name, double v) { raw(name, kReal, &v, sizeof v); }
void StateWriter::put(const std::string& name, const std::string& v) { raw(name, kText, v.data(), v.size()); }
void StateWriter::put(const std::string& name, const std::vector<float>& v) {
  raw(name, kFloats, v.data(), v.size() * sizeof(float));
}
void StateWriter::put(const std::string& name, const std::vector<double>& v) {
  raw(name, kReals, v.data(), v.size() * sizeof(double));
}
void StateWriter::put(const std::string& name, const std::vector<int64_t>& v) {
  raw(name, kInts, v.data(), v.size() * sizeof(int64_t));
}
void StateWriter::put(const std::string& name, const Model& m) {
  put(name + ".arch", m.spec.arch);
  put(name + ".shape", std::vector<int64_t>{m.spec.channels, m.spec.height, m.spec.width, m.spec.num_classes});
  put(name + ".width_multiplier", m.spec.width_multiplier);
  put(name + ".shape_values", m.shape_values);
  put(name + ".weights", m.weights);
}

void StateWriter::save(const std::string& path) const {
  std::string file(kMagic, sizeof kMagic);
  const uint64_t sum = checksum(body_), size = body_.size();
  append(file, &size, sizeof size);
  append(file, &sum, sizeof sum);
  file += body_;
  write_file_atomically(path, file);
}

StateReader::StateReader(const std::string& path) : path_(path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "no checkpoint here (cannot open the file)");
  std::ostringstream all;
  all << in.rdbuf();
  const std::string file = all.str();
  if (file.size() < sizeof kMagic || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0)
    throw InputError(path, 0, "", "not a fedgrid checkpoint (bad magic)");
  size_t at = sizeof kMagic;
  const auto size = take<uint64_t>(file, at, path);
  const auto sum = take<uint64_t>(file, at, path);
  if (file.size() - at != size) throw InputError(path, 0, "", "checkpoint file is truncated or has extra bytes");
  const std::string body = file.substr(at);
  if (checksum(body) != sum) throw InputError(path, 0, "", "checkpoint file is damaged (checksum mismatch)");
  at = 0;
  while (at < body.size()) {
    const auto name_size = take<uint32_t>(body, at, path);
    if (at + name_size + 1 > body.size()) throw InputError(path, 0, "", "checkpoint file is truncated");
    std::string name = body.substr(at, name_size);
    at += name_size;
    const char type = body[at++];
    const auto bytes = take<uint64_t>(body, at, path);
    if (at + bytes > body.size()) throw InputError(path, 0, "", "checkpoint file is truncated");
    entries_[name] = Entry{type, body.substr(at, bytes)};
    at += bytes;
  }
}

const StateReader::Entry& StateReader::get(const std::string& name, char type) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw InputError(path_, 0, name, "the checkpoint holds no such value");
  if (it->second.type != type) throw InputError(path_, 0, name, "the checkpoint holds it with another type");
  return it->second;
}

int64_t StateReader::integer(const std::string& name) const { return as_vector<int64_t>(get(name, kInt).bytes).at(0); }
double StateReader::real(const std::string& name) const { return as_vector<double>(get(name, kReal).bytes).at(0); }
std::string StateReader::text(const std::string& name) const { return get(name, kText).bytes; }
std::vector<float> StateReader::floats(const std::string& name) const { return as_vector<float>(get(name, kFloats).bytes); }
std::vector<double> StateReader::reals(const std::string& name) const { return as_vector<double>(get(name, kReals).bytes); }
std::vector<int64_t> StateReader::integers(const std::string& name) const {
  return as_vector<int64_t>(get(name, kInts).bytes);
}

Model StateReader::model(const std::string& name) const {
  Model m;
  m.spec.arch = text(name + ".arch");
  const auto shape = integers(name + ".shape");
  if (shape.size() != 4) throw InputError(path_, 0, name + ".shape", "expected 4 integers");
  m.spec.channels = int(shape[0]), m.spec.height = int(shape[1]), m.spec.width = int(shape[2]);
  m.spec.num_classes = int(shape[3]);
  m.spec.width_multiplier = real(name + ".width_multiplier");
  m.shape_values = integer(name + ".shape_values");
  m.weights = floats(name + ".weights");
  return m;
}

}  // namespace fedgrid
