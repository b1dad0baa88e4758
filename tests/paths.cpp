// Where the tests find the source folder and the fedgrid binary. Only this file is compiled with
// the two paths (CMakeLists.txt): on every test's command line they would tie each object to
// this clone's folder, and ccache could not reuse the objects in another clone (dev.sh).
#include "tests/helpers.hpp"

namespace fedgrid::test {

const char* source_dir() { return FEDGRID_SOURCE_DIR; }
const char* fedgrid_binary() { return FEDGRID_BINARY; }

}  // namespace fedgrid::test
