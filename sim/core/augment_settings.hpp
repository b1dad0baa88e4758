#pragma once
// data.augment: the random image augmentation of training batches (sim/jobs/training/augmentation.hpp
// applies it). Torch-free, so that the scenario and a job's inputs can carry it.
namespace fedgrid {

struct AugmentSettings {
  bool flip = false;      // a horizontal flip with probability 1/2
  double rotate_deg = 0;  // a rotation uniform in [-rotate_deg, rotate_deg] degrees
  double translate = 0;   // a shift along each axis uniform in [-translate, translate] of that side
  double scale_min = 1, scale_max = 1;  // a zoom uniform in [scale_min, scale_max]
  // Off (the default): batches are the samples as stored, and no draw is made.
  bool on() const { return flip || rotate_deg > 0 || translate > 0 || scale_min != 1 || scale_max != 1; }
};

}  // namespace fedgrid
