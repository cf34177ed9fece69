//===- ReadScope.cpp - Which files an artifact may make gestell read ------===//
#include "ReadScope.h"

#include "gestell/Input.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace gestell::driver {

void ReadScope::allow(StringRef Folder) {
  std::string Real = realPath(Folder);
  if (Real.empty())
    return;
  if (!sys::fs::is_directory(Real))
    Real = sys::path::parent_path(Real).str();
  Roots.push_back(std::move(Real));
}

void ReadScope::allowCurrentDirectory() {
  SmallString<256> Cwd;
  if (!sys::fs::current_path(Cwd))
    allow(Cwd);
}

Error checkTraceCaches(ArrayRef<std::string> Dirs) {
  for (const std::string &D : Dirs)
    if (!sys::fs::is_directory(D))
      return createStringError(inconvertibleErrorCode(),
                               "--trace-cache: '%s' is not a folder",
                               D.c_str());
  return Error::success();
}

bool ReadScope::permits(StringRef File) const {
  std::string Real = realPath(File);
  if (Real.empty() || !sys::fs::is_regular_file(Real))
    return false;
  for (const std::string &R : Roots)
    if (pathIsWithin(Real, R))
      return true;
  return false;
}

} // namespace gestell::driver
