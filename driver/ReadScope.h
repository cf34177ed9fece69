//===- ReadScope.h - Which files an artifact may make gestell read --------===//
//
// An artifact can name other files: the Python source in its debug info, a
// path inside a trace. Those names come from the scanned files, which are
// data (docs/config.md, "Trust"), so gestell reads such a file only when it
// is a regular file inside a scanned folder, a --path-map target or the
// current directory, with every link resolved.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_READSCOPE_H
#define GESTELL_DRIVER_READSCOPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace gestell::driver {

class ReadScope {
public:
  /// Allows the files under Folder (a file: the folder holding it).
  void allow(llvm::StringRef Folder);
  /// The current directory.
  void allowCurrentDirectory();
  /// Whether File is a regular file inside an allowed folder.
  bool permits(llvm::StringRef File) const;

private:
  std::vector<std::string> Roots; ///< real paths
};

/// --trace-cache=DIR (a TritonParse trace's cubins may be read there,
/// DiscoveryOptions::TraceCaches): each must be a folder, else the error
/// names it.
llvm::Error checkTraceCaches(llvm::ArrayRef<std::string> Dirs);

} // namespace gestell::driver

#endif
