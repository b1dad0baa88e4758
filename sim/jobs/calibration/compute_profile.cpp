#include "sim/jobs/calibration/compute_profile.hpp"

#include <libfccp/csv.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <sstream>

#include "sim/core/csv_number.hpp"
#include "sim/core/input_error.hpp"

namespace fedgrid {

const char* const kProfileColumns[13] = {"device",        "arch",           "width_multiplier", "input",
                                         "classes",       "batch_size",     "threads",          "train_step_s",
                                         "train_step_min_s", "eval_sample_s", "eval_sample_min_s", "repeats",
                                         "spread"};

std::string input_shape(const models::ModelSpec& spec) {
  return fmt::format("{}x{}x{}", spec.channels, spec.height, spec.width);
}

bool parse_input_shape(const std::string& text, models::ModelSpec& spec) {
  int c = 0, h = 0, w = 0;
  char x1 = 0, x2 = 0;
  std::istringstream in(text);
  if (!(in >> c >> x1 >> h >> x2 >> w) || x1 != 'x' || x2 != 'x' || !in.eof() || c < 1 || h < 1 || w < 1) return false;
  spec.channels = c, spec.height = h, spec.width = w;
  return true;
}

namespace {

// The model as rows name it: architecture, width, input and classes all change the step time.
std::string model_key(const models::ModelSpec& s) {
  return fmt::format("{} width {} on {}, {} classes", s.arch, s.width_multiplier, input_shape(s), s.num_classes);
}

int64_t whole(const std::string& cell, const std::string& file, int line, const char* column) {
  const double v = csv_number(cell, file, line, column, true);
  if (v != double(int64_t(v))) throw InputError(file, line, column, "expected a whole number, got '" + cell + "'");
  return int64_t(v);
}

void parse_input(const std::string& cell, models::ModelSpec& spec, const std::string& file, int line) {
  if (!parse_input_shape(cell, spec))
    throw InputError(file, line, "input", "expected CxHxW (e.g. 1x28x28), got '" + cell + "'");
}

std::vector<ProfileRow> read_file(const std::string& file) {
  std::vector<ProfileRow> rows;
  try {
    io::CSVReader<13, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_line_comment<'#'>>
        in(file);
    in.read_header(io::ignore_no_column, kProfileColumns[0], kProfileColumns[1], kProfileColumns[2],
                   kProfileColumns[3], kProfileColumns[4], kProfileColumns[5], kProfileColumns[6], kProfileColumns[7],
                   kProfileColumns[8], kProfileColumns[9], kProfileColumns[10], kProfileColumns[11], kProfileColumns[12]);
    std::string c[13];
    while (in.read_row(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12])) {
      const int line = int(in.get_file_line());
      ProfileRow r;
      r.file = file, r.line = line;
      r.device = c[0];
      if (r.device.empty()) throw InputError(file, line, "device", "empty device name");
      r.spec.arch = c[1];
      try {
        r.spec.width_multiplier = csv_number(c[2], file, line, "width_multiplier", true);
        parse_input(c[3], r.spec, file, line);
        r.spec.num_classes = int(whole(c[4], file, line, "classes"));
        models::model_cost(r.spec);
      } catch (const std::invalid_argument& e) {
        throw InputError(file, line, "arch", e.what());
      }
      r.batch_size = whole(c[5], file, line, "batch_size");
      r.threads = int(whole(c[6], file, line, "threads"));
      r.train_step_s = csv_number(c[7], file, line, "train_step_s", true);
      r.train_step_min_s = csv_number(c[8], file, line, "train_step_min_s", true);
      r.eval_sample_s = csv_number(c[9], file, line, "eval_sample_s", true);
      r.eval_sample_min_s = csv_number(c[10], file, line, "eval_sample_min_s", true);
      r.repeats = int(whole(c[11], file, line, "repeats"));
      r.spread = csv_number(c[12], file, line, "spread", false);
      rows.push_back(std::move(r));
    }
  } catch (const io::error::base& e) {
    throw InputError(file, 0, "", std::string("not a compute profile: ") + e.what());
  }
  return rows;
}

}  // namespace

std::string profile_csv(const ProfileMachine& m, const std::vector<ProfileRow>& rows) {
  std::string out = "# fedgrid compute profile (fedgrid calibrate)\n";
  out += fmt::format("# cpu: {}\n# cores: {}\n# libtorch: {}\n# compute_device: {}\n", m.cpu, m.cores, m.libtorch,
                     m.compute_device);
  if (!m.conditions.empty()) out += "# conditions: " + m.conditions + "\n";
  for (size_t i = 0; i < 13; ++i) out += std::string(i ? "," : "") + kProfileColumns[i];
  out += '\n';
  for (const auto& r : rows)
    out += fmt::format("{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{},{:.4f}\n", r.device, r.spec.arch,
                       r.spec.width_multiplier, input_shape(r.spec), r.spec.num_classes, r.batch_size, r.threads,
                       r.train_step_s, r.train_step_min_s, r.eval_sample_s, r.eval_sample_min_s, r.repeats, r.spread);
  return out;
}

ComputeProfile ComputeProfile::load(const std::string& path, const std::string& key) {
  namespace fs = std::filesystem;
  ComputeProfile p;
  p.path_ = path, p.key_ = key;
  std::vector<std::string> files;
  std::error_code ec;  // a path the system refuses (too long, say) is one that is not there
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path))
      if (e.is_regular_file() && e.path().extension() == ".csv") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
  } else if (fs::exists(path, ec)) {
    files.push_back(path);
  } else {
    throw InputError(path, 0, key, "compute profile not found (write one with `fedgrid calibrate --out FILE`)");
  }
  for (const auto& f : files)
    for (auto& r : read_file(f)) p.rows_.push_back(std::move(r));
  if (p.rows_.empty()) throw InputError(path, 0, key, "the compute profile has no rows");
  for (size_t i = 0; i < p.rows_.size(); ++i) {
    const auto& r = p.rows_[i];
    auto& by_batch = p.index_[{r.device, model_key(r.spec)}];
    if (const auto [at, fresh] = by_batch.emplace(r.batch_size, i); !fresh) {
      const auto& first = p.rows_[at->second];
      throw InputError(r.file, r.line, "batch_size",
                       fmt::format("device '{}' measured {} at batch size {} twice (also {}:{})", r.device,
                                   model_key(r.spec), r.batch_size, first.file, first.line));
    }
  }
  return p;
}

bool ComputeProfile::has_device(const std::string& device) const {
  return std::any_of(rows_.begin(), rows_.end(), [&](const ProfileRow& r) { return r.device == device; });
}

std::string ComputeProfile::devices() const {
  std::set<std::string> names;
  for (const auto& r : rows_) names.insert(r.device);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool ComputeProfile::has_model(const std::string& device, const models::ModelSpec& spec) const {
  return index_.count({device, model_key(spec)}) > 0;
}

const std::map<int64_t, size_t>& ComputeProfile::rows_of(const std::string& device,
                                                         const models::ModelSpec& spec) const {
  const auto it = index_.find({device, model_key(spec)});
  if (it == index_.end()) {
    const std::string which = has_device(device) ? "no row of " + model_key(spec) + " for device '" + device + "'"
                                                 : "no device '" + device + "' (devices: " + devices() + ")";
    throw InputError(path_, 0, key_,
                     which + "; measure it with `fedgrid calibrate --models " + spec.arch + "@" +
                         fmt::format("{}", spec.width_multiplier) + ":" + input_shape(spec) + ":" +
                         std::to_string(spec.num_classes) + "`");
  }
  return it->second;
}

double ComputeProfile::train_step_s(const std::string& device, const models::ModelSpec& spec, int64_t batch) const {
  const auto& rows = rows_of(device, spec);
  auto time = [&](const std::map<int64_t, size_t>::const_iterator& it) { return rows_[it->second].train_step_s; };
  const auto above = rows.lower_bound(batch);
  if (above != rows.end() && above->first == batch) return time(above);
  if (above == rows.begin()) return time(above) * double(batch) / double(above->first);
  const auto below = std::prev(above);
  if (above == rows.end()) return time(below) * double(batch) / double(below->first);
  const double t = double(batch - below->first) / double(above->first - below->first);
  return time(below) + t * (time(above) - time(below));
}

double ComputeProfile::eval_s(const std::string& device, const models::ModelSpec& spec, int64_t samples) const {
  if (samples <= 0) return 0;
  const auto& rows = rows_of(device, spec);
  return rows_[rows.rbegin()->second].eval_sample_s * double(samples);
}

}  // namespace fedgrid
