//===- Error.cpp - Errors that name a file, line and column ---------------===//
#include "gestell/Error.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace gestell {

char InputError::ID = 0;

void InputError::log(raw_ostream &OS) const {
  OS << Path;
  if (Line) {
    OS << ':' << Line;
    if (Column)
      OS << ':' << Column;
  }
  OS << ": " << Message;
}

std::error_code InputError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

Error inputError(StringRef Path, const Twine &Message) {
  return make_error<InputError>(Path, 0, 0, Message);
}

Error inputError(StringRef Path, unsigned Line, unsigned Column,
                 const Twine &Message) {
  return make_error<InputError>(Path, Line, Column, Message);
}

} // namespace gestell
