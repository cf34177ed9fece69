//===- RegularFile.h - A path that must be a regular file -----------------===//
//
// Internal to the SDK: how openArtifact and the trace reader open a path
// they will read.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_REGULARFILE_H
#define GESTELL_LIB_REGULARFILE_H

#include "gestell/Error.h"

#include "llvm/Support/FileSystem.h"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <system_error>
#include <unistd.h>

namespace gestell {

/// Opens Path read-only, which must be a regular file (links followed), and
/// fills St from the open descriptor: what is read is what was looked at,
/// and a FIFO put in a file's place cannot stall the run (the open does not
/// block). The descriptor, for the caller to close; else an InputError at
/// Path: cannot read, a directory, or not a regular file.
inline llvm::Expected<int> openRegularFile(llvm::StringRef Path,
                                           llvm::sys::fs::file_status &St) {
  int FD = ::open(Path.str().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (FD < 0)
    return inputError(Path, "cannot read: " +
                                std::error_code(errno, std::generic_category())
                                    .message());
  std::string Why;
  if (std::error_code EC = llvm::sys::fs::status(FD, St))
    Why = "cannot read: " + EC.message();
  else if (St.type() == llvm::sys::fs::file_type::directory_file)
    Why = "expected a file, found a directory";
  else if (St.type() != llvm::sys::fs::file_type::regular_file)
    Why = "expected a regular file";
  if (Why.empty())
    return FD;
  ::close(FD);
  return inputError(Path, Why);
}

} // namespace gestell

#endif
