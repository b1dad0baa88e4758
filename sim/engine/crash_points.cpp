#include "sim/engine/crash_points.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

namespace fedgrid {
namespace {

struct Target {
  std::string name;
  long pass = 0;  // 0: none
  long seen = 0;
};

Target& target() {
  static Target t = [] {
    Target t;
    const char* spec = std::getenv("FEDGRID_CRASH_AT");
    if (!spec) return t;
    const char* colon = std::strrchr(spec, ':');
    if (!colon) return t;
    t.name.assign(spec, colon);
    t.pass = std::strtol(colon + 1, nullptr, 10);
    return t;
  }();
  return t;
}

}  // namespace

void crash_point(const char* name) {
  Target& t = target();
  if (t.pass <= 0 || t.name != name) return;
  if (++t.seen == t.pass) std::raise(SIGKILL);
}

}  // namespace fedgrid
