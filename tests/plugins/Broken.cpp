//===- Broken.cpp - Plugins broken in each way the loader must report -----===//
//
// Built once per kind with BROKEN_KIND set (see CMakeLists.txt):
//   no-entry   exports no gestellGetPluginInfo
//   version    built for another plugin API version
//   register   registration breaks the registry's rules and calls fail()
//   throws     registration throws
//   undefined  needs a symbol nothing provides (the loader refuses it)
//
//===----------------------------------------------------------------------===//
#include "gestell/Plugin.h"

#include <stdexcept>

using namespace gestell;

namespace {
class Nothing : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "elsewhere-check"; // not the module's prefix
    I.Summary = "Registered under the wrong module prefix";
    return I;
  }
  using Check::Check;
  llvm::Error check(CheckInput &) override { return llvm::Error::success(); }
};

[[maybe_unused]] void registerChecks(CheckRegistry &R) {
#if BROKEN_KIND_register
  R.add<Nothing>();
  R.fail("the module's own reason");
#elif BROKEN_KIND_throws
  throw std::runtime_error("registration blew up");
#endif
  (void)R;
}
} // namespace

#if BROKEN_KIND_undefined
extern "C" int gestellTestSymbolThatDoesNotExist();
#endif

#if !BROKEN_KIND_no_entry
extern "C" GESTELL_PLUGIN_EXPORT PluginInfo gestellGetPluginInfo() {
#if BROKEN_KIND_undefined
  gestellTestSymbolThatDoesNotExist();
#endif
#if BROKEN_KIND_version
  return {GESTELL_PLUGIN_API_VERSION + 41, "broken", "0", registerChecks};
#else
  return {GESTELL_PLUGIN_API_VERSION, "broken", "0", registerChecks};
#endif
}
#else
extern "C" GESTELL_PLUGIN_EXPORT int somethingElse() { return 0; }
#endif
