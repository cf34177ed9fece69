//===- Plugin.cpp - Check modules loaded at run time ----------------------===//
//
// Loading goes through Boost.DLL (boost::dll::shared_library and import),
// with the file checked first so that each way a plugin can be broken gets
// its own message naming the file.
//
//===----------------------------------------------------------------------===//
#include "gestell/Plugin.h"
#include "gestell/Error.h"

#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <boost/dll/import.hpp>
#include <boost/dll/shared_library.hpp>

#include <exception>

using namespace llvm;

namespace gestell {

namespace {
/// Boost.DLL puts dlerror's text in what() between "(dlerror system message:
/// " and the matching ")". Keep only that text when it is there.
std::string loaderMessage(StringRef What) {
  StringRef Key = "(dlerror system message: ";
  size_t P = What.find(Key);
  if (P == StringRef::npos)
    return What.str();
  StringRef Rest = What.drop_front(P + Key.size());
  size_t Close = Rest.rfind(')');
  return (Close == StringRef::npos ? Rest : Rest.take_front(Close)).str();
}
} // namespace

Expected<Plugin> Plugin::load(StringRef GivenPath) {
  SmallString<256> Abs(GivenPath);
  sys::fs::make_absolute(Abs);
  std::string Path = std::string(Abs);

  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St))
    return inputError(GivenPath, "cannot read plugin: " + EC.message());
  if (St.type() != sys::fs::file_type::regular_file)
    return inputError(GivenPath, "cannot load plugin: not a regular file");
  file_magic Magic;
  if (std::error_code EC = identify_magic(Path, Magic))
    return inputError(GivenPath, "cannot read plugin: " + EC.message());
  if (Magic != file_magic::elf_shared_object)
    return inputError(GivenPath, "not a shared library: a gestell plugin is "
                                 "an ELF shared object (.so)");

  auto Lib = std::make_shared<boost::dll::shared_library>();
  try {
    Lib->load(Path, boost::dll::load_mode::rtld_now |
                        boost::dll::load_mode::rtld_local);
  } catch (const std::exception &E) {
    return inputError(GivenPath,
                      "cannot load plugin: " + loaderMessage(E.what()));
  }
  if (!Lib->has(PluginEntryPoint))
    return inputError(GivenPath, Twine("no plugin entry point: the library "
                                       "does not export '") +
                                     PluginEntryPoint + "'");

  Plugin P;
  try {
    auto Entry = boost::dll::import <PluginInfo()>(*Lib, PluginEntryPoint);
    P.Info = Entry();
  } catch (const std::exception &E) {
    return inputError(GivenPath,
                      Twine("plugin entry point failed: ") + E.what());
  }
  if (P.Info.APIVersion != PluginAPIVersion)
    return inputError(
        GivenPath, "wrong plugin API version (got " + Twine(P.Info.APIVersion) +
                       ", supported " + Twine(PluginAPIVersion) +
                       "): rebuild the plugin against this gestell SDK");
  if (!P.Info.Name || !P.Info.Version || !P.Info.RegisterChecks)
    return inputError(GivenPath, "incomplete plugin info: the entry point "
                                 "must give a name, a version and a "
                                 "registration function");
  P.Name = P.Info.Name;
  P.Version = P.Info.Version;
  if (!isValidCheckId(P.Name))
    return inputError(GivenPath, "invalid plugin name '" + P.Name +
                                     "': use lowercase letters, digits "
                                     "and '-'");
  P.Path = Path;
  P.Library = std::move(Lib);
  return P;
}

Error Plugin::registerChecks(CheckRegistry &R) const {
  R.beginModule(Name, Library);
  try {
    Info.RegisterChecks(R);
  } catch (const std::exception &E) {
    R.fail(Twine("registration threw: ") + E.what());
  } catch (...) {
    R.fail("registration threw an exception");
  }
  if (Error E = R.endModule())
    return inputError(
        Path, "plugin '" + Name +
                  "' failed to register its checks: " + toString(std::move(E)));
  return Error::success();
}

} // namespace gestell
