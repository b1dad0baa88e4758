#include "sim/sweep/plan_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "sim/core/whole_number.hpp"

namespace fedgrid {
namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

double number(const std::string& text, const std::string& what) {
  const auto v = whole_number(text);
  if (!v) throw std::invalid_argument(what + " '" + text + "' is not a number");
  return *v;
}

// Whether the bracket [a, b] is as narrow as the search goes.
bool converged(const PlanRange& r, double a, double b) {
  if (r.integer) return std::abs(b - a) <= 1;
  return std::abs(b - a) <= r.tolerance * std::max(std::abs(a), std::abs(b));
}

// Up to `count` new points strictly between a and b.
std::vector<double> inside(const PlanRange& r, double a, double b, int count, bool logarithmic) {
  std::vector<double> out;
  for (int i = 1; i <= count; ++i) {
    const double f = double(i) / double(count + 1);
    double v = logarithmic ? std::exp(std::log(a) + f * (std::log(b) - std::log(a))) : a + f * (b - a);
    if (r.integer) v = std::round(v);
    if ((v - a) * (v - b) < 0 && (out.empty() || v != out.back())) out.push_back(v);
  }
  if (out.empty() && r.integer && std::abs(b - a) > 1) out.push_back(std::floor((a + b) / 2));
  return out;
}

}  // namespace

std::string PlanTarget::text() const {
  return fmt::format("{} {} {}", figure, at_most ? "<=" : ">=", against ? "against" : fmt::format("{}", threshold));
}

PlanTarget parse_target(const std::string& text) {
  for (const char* op : {"<=", ">="}) {
    const size_t at = text.find(op);
    if (at == std::string::npos) continue;
    PlanTarget t;
    t.figure = trimmed(text.substr(0, at));
    t.at_most = std::string(op) == "<=";
    const std::string rhs = trimmed(text.substr(at + 2));
    if (rhs == "against") t.against = true;
    else t.threshold = number(rhs, "the target's threshold");
    if (t.figure.empty()) throw std::invalid_argument("the target names no figure");
    return t;
  }
  throw std::invalid_argument("expected 'FIGURE <= VALUE' or 'FIGURE >= VALUE', got '" + text + "'");
}

PlanRange parse_range(const std::string& text, bool integer) {
  const size_t dots = text.find("..");
  if (dots == std::string::npos) throw std::invalid_argument("expected LO..HI, got '" + text + "'");
  PlanRange r;
  r.integer = integer;
  r.lo = number(trimmed(text.substr(0, dots)), "the range's low end");
  r.hi = number(trimmed(text.substr(dots + 2)), "the range's high end");
  if (integer && (r.lo != std::round(r.lo) || r.hi != std::round(r.hi)))
    throw std::invalid_argument("an integer key's range takes integers, got '" + text + "'");
  if (!(r.lo < r.hi)) throw std::invalid_argument("an empty range: '" + text + "' (LO must be below HI)");
  return r;
}

PlanResult plan_search(const PlanRange& range, const PlanTarget& target, int jobs, const PlanEvaluate& evaluate) {
  PlanResult out;
  std::map<double, PlanPoint> seen;
  auto run = [&](const std::vector<double>& values) {
    std::vector<PlanPoint> got = evaluate(values);
    for (const PlanPoint& p : got) out.points.push_back(p), seen[p.value] = p;
    for (const PlanPoint& p : got)
      if (!p.figure) return false;
    return true;
  };
  out.good = range.lo, out.bad = range.hi;
  if (!run({range.lo, range.hi})) {
    out.verdict = "failed";
    return out;
  }
  const bool at_lo = target.holds(*seen[range.lo].figure), at_hi = target.holds(*seen[range.hi].figure);
  if (at_lo == at_hi) {
    out.verdict = at_lo ? "holds_everywhere" : "holds_nowhere";
  } else {
    out.verdict = "boundary";
    out.largest = at_lo;
    double good = at_lo ? range.lo : range.hi, bad = at_lo ? range.hi : range.lo;
    const bool logarithmic = range.lo > 0 && range.hi / range.lo >= 100;
    while (!converged(range, good, bad)) {
      // Points ordered from the good end to the bad one.
      std::vector<double> next = inside(range, std::min(good, bad), std::max(good, bad), std::max(1, jobs), logarithmic);
      if (next.empty()) break;
      if (good > bad) std::reverse(next.begin(), next.end());
      if (!run(next)) {
        out.verdict = "failed";
        break;
      }
      for (double v : next) {
        if (!target.holds(*seen[v].figure)) {
          bad = v;
          break;
        }
        good = v;
      }
    }
    out.good = good, out.bad = bad;
    if (out.verdict == "boundary") out.answer = good;
  }
  // Monotonicity over every point evaluated: the verdict flips at most once, the figure moves
  // one way (ties allowed).
  std::vector<const PlanPoint*> sorted;
  for (const auto& [v, p] : seen)
    if (p.figure) sorted.push_back(&p);
  int flips = 0, rises = 0, falls = 0;
  for (size_t i = 1; i < sorted.size(); ++i) {
    const double a = *sorted[i - 1]->figure, b = *sorted[i]->figure;
    flips += target.holds(a) != target.holds(b);
    rises += b > a, falls += b < a;
  }
  if (flips > 1)
    out.violations.push_back(fmt::format("the target's verdict flips {} times across the points evaluated", flips));
  if (rises > 0 && falls > 0)
    out.violations.push_back(fmt::format("the figure rises {} times and falls {} times between neighbouring points",
                                         rises, falls));
  out.monotone = out.violations.empty();
  return out;
}

}  // namespace fedgrid
