#pragma once
// The data a run is made of: the dataset (or the tasks merged into one label space), resized
// if asked, dealt to the server (data.server_share) and to the hospitals, each hospital's
// share split train/val/test.
#include "data/sources.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

struct World;

// Cheap presence checks of every dataset the scenario names (for `fedgrid validate`).
// Throws InputError naming the key.
void check_data_sources(const Scenario& s);

// Fills world.data, world.splits (one per hospital of `hospitals`) and world.server_split.
// `pixels`: what is read of the images (data::Pixels; without them, world.data holds shapes
// and labels, and no site shift is applied). Throws InputError naming the key for unreadable
// data or impossible partitions.
void set_up_data(World& world, int hospitals, data::Pixels pixels);

}  // namespace fedgrid
