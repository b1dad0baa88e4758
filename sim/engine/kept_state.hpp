#pragma once
// What an algorithm keeps from one round to the next (its global model, per-tier or
// per-hospital models, a server optimiser's moments, a ranking), named and held by reference:
// a checkpoint saves the values as they are, a resumed run loads them back into the same
// variables (Federation::first_round).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/core/model.hpp"

namespace fedgrid {

class StateWriter;
class StateReader;

class Kept {
 public:
  Kept(std::string name, Model& model);
  Kept(std::string name, std::vector<Model>& models);
  Kept(std::string name, std::map<std::string, Model>& models);
  Kept(std::string name, std::vector<double>& values);
  Kept(std::string name, std::vector<std::vector<double>>& rows);
  Kept(std::string name, std::vector<int>& values);
  Kept(std::string name, std::map<int, double>& values);
  Kept(std::string name, double& value);
  Kept(std::string name, int& value);

  const std::string& name() const { return name_; }
  void save(StateWriter& out) const { save_(out, "algorithm." + name_); }
  void load(const StateReader& in) const { load_(in, "algorithm." + name_); }

 private:
  std::string name_;
  std::function<void(StateWriter&, const std::string&)> save_;
  std::function<void(const StateReader&, const std::string&)> load_;
};

}  // namespace fedgrid
