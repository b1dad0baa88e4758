#pragma once
// The simulator's own keys (core_keys.cpp), bound to the Scenario fields they fill.
#include <vector>

#include "sim/scenario/key_table.hpp"

namespace fedgrid {

struct Scenario;
template <class Settings>
class KeySet;

const KeySet<Scenario>& core_keys();
std::vector<KeyDecl> core_key_declarations();  // the table's first part (key_table.cpp)

}  // namespace fedgrid
