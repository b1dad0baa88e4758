#include "sim/engine/kept_state.hpp"

#include "sim/engine/state_file.hpp"

namespace fedgrid {

Kept::Kept(std::string name, Model& model) : name_(std::move(name)) {
  save_ = [&model](StateWriter& out, const std::string& key) { out.put(key, model); };
  load_ = [&model](const StateReader& in, const std::string& key) { model = in.model(key); };
}

Kept::Kept(std::string name, std::vector<Model>& models) : name_(std::move(name)) {
  save_ = [&models](StateWriter& out, const std::string& key) {
    out.put(key + ".count", int64_t(models.size()));
    for (size_t i = 0; i < models.size(); ++i) out.put(key + "." + std::to_string(i), models[i]);
  };
  load_ = [&models](const StateReader& in, const std::string& key) {
    models.clear();
    const int64_t n = in.integer(key + ".count");
    for (int64_t i = 0; i < n; ++i) models.push_back(in.model(key + "." + std::to_string(i)));
  };
}

Kept::Kept(std::string name, std::map<std::string, Model>& models) : name_(std::move(name)) {
  // Names are kept in one text (newline-separated, in map order) beside the models by position.
  save_ = [&models](StateWriter& out, const std::string& key) {
    std::string names;
    size_t i = 0;
    for (const auto& [name, model] : models) {
      names += name + "\n";
      out.put(key + "." + std::to_string(i++), model);
    }
    out.put(key + ".names", names);
  };
  load_ = [&models](const StateReader& in, const std::string& key) {
    models.clear();
    const std::string names = in.text(key + ".names");
    size_t i = 0, at = 0;
    for (size_t end; (end = names.find('\n', at)) != std::string::npos; at = end + 1)
      models[names.substr(at, end - at)] = in.model(key + "." + std::to_string(i++));
  };
}

Kept::Kept(std::string name, std::vector<double>& values) : name_(std::move(name)) {
  save_ = [&values](StateWriter& out, const std::string& key) { out.put(key, values); };
  load_ = [&values](const StateReader& in, const std::string& key) { values = in.reals(key); };
}

Kept::Kept(std::string name, std::vector<std::vector<double>>& rows) : name_(std::move(name)) {
  save_ = [&rows](StateWriter& out, const std::string& key) {
    out.put(key + ".count", int64_t(rows.size()));
    for (size_t i = 0; i < rows.size(); ++i) out.put(key + "." + std::to_string(i), rows[i]);
  };
  load_ = [&rows](const StateReader& in, const std::string& key) {
    rows.assign(size_t(in.integer(key + ".count")), {});
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = in.reals(key + "." + std::to_string(i));
  };
}

Kept::Kept(std::string name, std::vector<int>& values) : name_(std::move(name)) {
  save_ = [&values](StateWriter& out, const std::string& key) {
    out.put(key, std::vector<int64_t>(values.begin(), values.end()));
  };
  load_ = [&values](const StateReader& in, const std::string& key) {
    const auto v = in.integers(key);
    values.assign(v.begin(), v.end());
  };
}

Kept::Kept(std::string name, std::map<int, double>& values) : name_(std::move(name)) {
  save_ = [&values](StateWriter& out, const std::string& key) {
    std::vector<int64_t> keys;
    std::vector<double> vs;
    for (const auto& [k, v] : values) keys.push_back(k), vs.push_back(v);
    out.put(key + ".keys", keys);
    out.put(key + ".values", vs);
  };
  load_ = [&values](const StateReader& in, const std::string& key) {
    values.clear();
    const auto keys = in.integers(key + ".keys");
    const auto vs = in.reals(key + ".values");
    for (size_t i = 0; i < keys.size() && i < vs.size(); ++i) values[int(keys[i])] = vs[i];
  };
}

Kept::Kept(std::string name, double& value) : name_(std::move(name)) {
  save_ = [&value](StateWriter& out, const std::string& key) { out.put(key, value); };
  load_ = [&value](const StateReader& in, const std::string& key) { value = in.real(key); };
}

Kept::Kept(std::string name, int& value) : name_(std::move(name)) {
  save_ = [&value](StateWriter& out, const std::string& key) { out.put(key, int64_t(value)); };
  load_ = [&value](const StateReader& in, const std::string& key) { value = int(in.integer(key)); };
}

}  // namespace fedgrid
