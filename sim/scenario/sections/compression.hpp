#pragma once
// compression.uplink / compression.downlink (docs/guide/compression.md): the codec each
// direction's model transfers go through; off (method: none) unless a method is given.
// Uplink: hospital -> server and hospital -> hospital; downlink: server -> hospital.
#include "sim/compression/codec_settings.hpp"

namespace fedgrid {

struct CompressionSection {
  struct Link {
    bool on = false;
    compression::CodecSettings codec;
  };
  Link uplink, downlink;
  bool any() const { return uplink.on || downlink.on; }
};

}  // namespace fedgrid
