// The translation unit that builds the precompiled torch header (CMakeLists.txt).
