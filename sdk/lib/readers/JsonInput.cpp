//===- JsonInput.cpp - JSON from a file, with its nesting bounded ---------===//
#include "gestell/Error.h"
#include "gestell/Input.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace gestell {

namespace {

/// Offset of the bracket that opens level MaxJsonDepth + 1, or npos. Brackets
/// inside strings do not count; a malformed text is left to the parser.
size_t tooDeepAt(StringRef Text) {
  unsigned Depth = 0;
  bool InString = false;
  for (size_t I = 0, N = Text.size(); I < N; ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxJsonDepth)
        return I;
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return StringRef::npos;
}

} // namespace

Expected<json::Value> parseJsonInput(StringRef Text, StringRef Path,
                                     StringRef What) {
  if (size_t At = tooDeepAt(Text); At != StringRef::npos) {
    LineCol LC = lineColOf(Text, At);
    return inputError(Path, LC.Line, LC.Column,
                      "invalid " + What +
                          ": arrays and objects nested deeper than " +
                          Twine(MaxJsonDepth) + " levels");
  }
  Expected<json::Value> V = json::parse(Text);
  if (V)
    return V;
  // json::ParseError keeps its position private; its text is
  // "[line:col, byte=N]: message", and the byte offset is exact.
  std::string Msg = toString(V.takeError());
  StringRef Rest(Msg);
  size_t Offset = 0;
  LineCol LC;
  if (size_t B = Rest.find("byte="); B != StringRef::npos) {
    StringRef Num = Rest.drop_front(B + 5);
    if (!Num.consumeInteger(10, Offset) && Num.consume_front("]: ")) {
      LC = lineColOf(Text, Offset);
      Rest = Num;
    }
  }
  std::string Said = Rest.str();
  if (!Said.empty())
    Said[0] = toLower(Said[0]);
  return inputError(Path, LC.Line, LC.Column, "invalid " + What + ": " + Said);
}

} // namespace gestell
