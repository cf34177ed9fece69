//===- RegularFile.h - A path that must be a regular file -----------------===//
//
// Internal to the SDK: what openArtifact and the trace reader say about a
// path before they open it.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_REGULARFILE_H
#define GESTELL_LIB_REGULARFILE_H

#include "gestell/Error.h"

#include "llvm/Support/FileSystem.h"

namespace gestell {

/// Fills St for Path, which must be a regular file (links followed); else
/// an InputError at Path: cannot read, a directory, or not a regular file.
inline llvm::Error statRegularFile(llvm::StringRef Path,
                                   llvm::sys::fs::file_status &St) {
  if (std::error_code EC = llvm::sys::fs::status(Path, St))
    return inputError(Path, "cannot read: " + EC.message());
  if (St.type() == llvm::sys::fs::file_type::directory_file)
    return inputError(Path, "expected a file, found a directory");
  if (St.type() != llvm::sys::fs::file_type::regular_file)
    return inputError(Path, "expected a regular file");
  return llvm::Error::success();
}

} // namespace gestell

#endif
