//===- Error.cpp - Errors that name a file, line and column ---------------===//
#include "gestell/Error.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

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

std::pair<unsigned, unsigned> positionInside(StringRef Text, unsigned Line,
                                             unsigned Column) {
  // The lines of Text, as an editor numbers them: a final newline does not
  // open another line.
  StringRef Rest = Text;
  unsigned N = 1;
  StringRef Last = Rest;
  while (true) {
    auto [Head, Tail] = Rest.split('\n');
    Last = Head;
    if (N == Line && Line != 0)
      return {Line, std::clamp(Column, 1u, unsigned(Head.size()) + 1)};
    if (Tail.empty())
      break;
    Rest = Tail;
    ++N;
  }
  return {N, unsigned(Last.size()) + 1};
}

} // namespace gestell
