#pragma once
// A checkpoint's bytes: named values (integers, doubles bit for bit, strings, float and double
// vectors, models) written as one file that is whole or absent. Written to FILE.tmp, flushed
// to disk, then renamed over FILE, and the folder flushed, so a run killed at any instant
// leaves either the previous checkpoint or the new one. A checksum over the contents catches
// a file damaged afterwards. Byte order is the machine's own (checkpoints resume where written).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/model.hpp"

namespace fedgrid {

class StateWriter {
 public:
  void put(const std::string& name, int64_t v);
  void put(const std::string& name, double v);
  void put(const std::string& name, const std::string& v);
  void put(const std::string& name, const std::vector<float>& v);
  void put(const std::string& name, const std::vector<double>& v);
  void put(const std::string& name, const std::vector<int64_t>& v);
  void put(const std::string& name, const Model& m);  // spec, shape and weights under name.*
  // Writes every value put so far to `path`, atomically (see above).
  void save(const std::string& path) const;

 private:
  void raw(const std::string& name, char type, const void* data, size_t bytes);
  std::string body_;
  std::map<std::string, char> names_;  // each name once
};

class StateReader {
 public:
  // Reads and checks a file StateWriter::save wrote; a missing, truncated or damaged file is
  // an InputError naming it.
  explicit StateReader(const std::string& path);
  bool has(const std::string& name) const { return entries_.count(name) > 0; }
  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  std::string text(const std::string& name) const;
  std::vector<float> floats(const std::string& name) const;
  std::vector<double> reals(const std::string& name) const;
  std::vector<int64_t> integers(const std::string& name) const;
  Model model(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  struct Entry {
    char type;
    std::string bytes;
  };
  const Entry& get(const std::string& name, char type) const;
  std::string path_;
  std::map<std::string, Entry> entries_;
};

// Writes `bytes` to `path` through FILE.tmp, fsync and rename (whole or absent).
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace fedgrid
