//===- gestell/Error.h - Errors that name a file, line and column ---------===//
//
// Every failure that comes from bad input is an InputError: it names the file
// and, where there is one, the line and column, like a compiler diagnostic.
// LLVM's own FileError carries a line but no column and prints "'f': line N";
// we want "file:line:col: what was expected" everywhere, so we keep our own.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_ERROR_H
#define GESTELL_ERROR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <utility>

#include <string>

namespace gestell {

class InputError : public llvm::ErrorInfo<InputError> {
public:
  static char ID;
  InputError(llvm::StringRef Path, unsigned Line, unsigned Column,
             const llvm::Twine &Message)
      : Path(Path.str()), Line(Line), Column(Column), Message(Message.str()) {}

  /// Prints "path:line:col: message" (line and column only when known).
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  std::string Path;
  unsigned Line;   ///< 1-based; 0 when the error is about the whole file.
  unsigned Column; ///< 1-based; 0 when unknown.
  std::string Message;
};

/// An error about a file as a whole ("not a cubin", "cannot open").
llvm::Error inputError(llvm::StringRef Path, const llvm::Twine &Message);
/// An error at a line (and column, 1-based; 0 = unknown) of a file.
llvm::Error inputError(llvm::StringRef Path, unsigned Line, unsigned Column,
                       const llvm::Twine &Message);

/// Line:Column moved inside Text when a parser reports a place past its
/// end (toml++ puts "encountered end-of-file" on the line after the last,
/// or past the last column): the end of the last line. A place inside is
/// returned as it is.
std::pair<unsigned, unsigned> positionInside(llvm::StringRef Text,
                                             unsigned Line, unsigned Column);

} // namespace gestell

#endif
