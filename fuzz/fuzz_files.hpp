#pragma once
// What the harnesses share: most fedgrid readers take a path, so each harness writes its input
// into a scratch folder of its own process (removed at exit) and hands the reader that path.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fedgrid::fuzz {

inline const std::string& scratch_dir() {
  // Never destroyed: the exit handler that removes the folder runs after static destructors.
  static const std::string* dir = [] {
    const auto d = std::filesystem::temp_directory_path() / ("fedgrid-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return new std::string(d.string());
  }();
  return *dir;
}

inline std::string write_scratch(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return path;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Several files in one input: each part is a 4-byte little-endian length, then that many bytes
// (cut short at the end of the input); the last part takes whatever is left. The seed inputs of
// fuzz/corpus/idx are written in this form by fuzz/make_binary_seeds.py.
inline std::vector<std::string> split_parts(const uint8_t* data, size_t size, size_t parts) {
  std::vector<std::string> out;
  for (size_t p = 0; p < parts; ++p) {
    if (p + 1 == parts) {
      out.emplace_back(reinterpret_cast<const char*>(data), size);
      break;
    }
    uint32_t n = 0;
    if (size >= 4) std::memcpy(&n, data, 4);
    const size_t header = size < 4 ? size : 4;
    data += header, size -= header;
    const size_t take = n < size ? n : size;
    out.emplace_back(reinterpret_cast<const char*>(data), take);
    data += take, size -= take;
  }
  return out;
}

}  // namespace fedgrid::fuzz
