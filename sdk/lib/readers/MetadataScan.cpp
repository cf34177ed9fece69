//===- MetadataScan.cpp - The members of a .json that gestell reads -------===//
//
// A kernel's .json is about 1 KB of which gestell reads a dozen members.
// llvm::json::parse builds the whole document (a string per key and value,
// a map per object): about 80 instructions a byte, a tenth of `gestell
// check` on a cache. One pass here checks the syntax and makes only the
// members kernelMetadataFromJson reads: scalars and objects (`target`)
// here, anything else (an array) by json::parse, each alone.
//
// The pass reads a subset of what json::parse reads and gives up on the
// rest (a \u escape, a byte outside printable ASCII in a string, a number
// json::parse would read otherwise, nesting past MaxJsonDepth, a syntax
// error): the caller then parses the text whole, as before, which also
// locates any error. So whatever this pass accepts reads exactly as
// json::parse reads it; a later duplicate member wins, as there.
//
//===----------------------------------------------------------------------===//
#include "gestell/Input.h"
#include "readers/JsonInput.h"
#include "readers/TextScan.h"

#include "llvm/ADT/StringSwitch.h"

#include <array>

using namespace llvm;

namespace gestell {

namespace {

/// The members kernelMetadataFromJson reads.
bool isReadMember(StringRef Key) {
  return StringSwitch<bool>(Key)
      .Cases({"name", "hash", "arch", "triton_version", "num_warps", "num_ctas",
              "num_stages", "warp_size", "shared", "tmem_size", "maxnreg",
              "src_constants", "target"},
             true)
      .Default(false);
}

class MemberScan {
public:
  explicit MemberScan(StringRef Text) : P(Text.begin()), E(Text.end()) {}

  std::optional<json::Object> run() {
    json::Object O;
    space();
    if (!object(1, &O))
      return std::nullopt;
    space();
    if (P != E)
      return std::nullopt;
    return O;
  }

private:
  const char *P;
  const char *E;

  void space() {
    while (P != E && (*P == ' ' || *P == '\t' || *P == '\n' || *P == '\r'))
      ++P;
  }
  bool eat(char C) {
    if (P == E || *P != C)
      return false;
    ++P;
    return true;
  }
  bool digits() {
    const char *B = P;
    while (P != E && scan::isDigit(*P))
      ++P;
    return P != B;
  }

  /// The bytes a run of plain string bytes ends at: the closing quote, an
  /// escape, a control byte or one outside ASCII.
  static constexpr std::array<bool, 256> StringStop = [] {
    std::array<bool, 256> T{};
    for (unsigned C = 0; C < 256; ++C)
      T[C] = C == '"' || C == '\\' || C < 0x20 || C >= 0x80;
    return T;
  }();

  /// At '"': a string of printable ASCII with the one-letter escapes
  /// (none of which spells a letter: a member name written with one is
  /// not a member gestell reads); Raw is its text between the quotes.
  bool string(StringRef &Raw) {
    ++P;
    const char *B = P;
    for (;;) {
      while (P != E && !StringStop[uint8_t(*P)])
        ++P;
      if (P == E)
        return false;
      if (*P == '"')
        break;
      if (*P != '\\' || P + 1 == E || !StringRef("\"\\/bfnrt").contains(P[1]))
        return false;
      P += 2;
    }
    Raw = StringRef(B, P - B);
    ++P;
    return true;
  }

  /// -?digits[.digits][(e|E)[+|-]digits], not followed by what json::parse
  /// would read as more of the number.
  bool number() {
    eat('-');
    if (!digits())
      return false;
    if (eat('.') && !digits())
      return false;
    if (P != E && (*P == 'e' || *P == 'E')) {
      ++P;
      if (P != E && (*P == '+' || *P == '-'))
        ++P;
      if (!digits())
        return false;
    }
    return P == E || !StringRef("0123456789eE+-.").contains(*P);
  }

  bool literal(StringRef Word) {
    if (size_t(E - P) < Word.size() || StringRef(P, Word.size()) != Word)
      return false;
    P += Word.size();
    return true;
  }

  bool value(unsigned Depth) {
    if (P == E)
      return false;
    StringRef Raw;
    switch (*P) {
    case '{':
      return object(Depth + 1, nullptr);
    case '[':
      return array(Depth + 1);
    case '"':
      return string(Raw);
    case 't':
      return literal("true");
    case 'f':
      return literal("false");
    case 'n':
      return literal("null");
    default:
      return number();
    }
  }

  /// At the bracket that opens a list of Depth: Element for each item up
  /// to Close, items separated by commas.
  template <typename ElementFn>
  bool list(unsigned Depth, char Close, ElementFn Element) {
    if (Depth > MaxJsonDepth)
      return false;
    ++P;
    space();
    if (eat(Close))
      return true;
    for (;;) {
      if (!Element())
        return false;
      space();
      if (eat(Close))
        return true;
      if (!eat(','))
        return false;
      space();
    }
  }

  bool array(unsigned Depth) {
    return list(Depth, ']', [&] { return value(Depth); });
  }

  /// At '{'. Into Out go the members gestell reads (every member, with
  /// All: the object is the value of one it reads), each scalar made here,
  /// each object read by this pass into its own json::Object, anything
  /// else parsed alone by json::parse.
  bool object(unsigned Depth, json::Object *Out, bool All = false) {
    if (P == E || *P != '{')
      return false;
    return list(Depth, '}', [&] {
      StringRef Key;
      if (P == E || *P != '"' || !string(Key))
        return false;
      space();
      if (!eat(':'))
        return false;
      space();
      bool Read = Out && (All || isReadMember(Key));
      if (Read && P != E && *P == '{') {
        json::Object Members;
        if (!object(Depth + 1, &Members, true))
          return false;
        (*Out)[Key] = std::move(Members);
        return true;
      }
      const char *ValueAt = P;
      if (!value(Depth))
        return false;
      if (Read) {
        std::optional<json::Value> V = member(StringRef(ValueAt, P - ValueAt));
        if (!V)
          return false;
        (*Out)[Key] = std::move(*V);
      }
      return true;
    });
  }

  /// A member's value, as json::parse reads it: the scalars most members
  /// are (a string without escapes, an integer that fits 64 bits, true,
  /// false, null) made here, anything else by json::parse.
  static std::optional<json::Value> member(StringRef Text) {
    int64_t I;
    if (Text.size() >= 2 && Text.front() == '"' && !Text.contains('\\'))
      return json::Value(Text.drop_front().drop_back().str());
    if (!Text.empty() && (scan::isDigit(Text.back())) &&
        !Text.contains_insensitive('e') && !Text.contains('.') &&
        !Text.getAsInteger(10, I))
      return json::Value(I);
    if (Text == "true" || Text == "false")
      return json::Value(Text == "true");
    if (Text == "null")
      return json::Value(nullptr);
    Expected<json::Value> V = json::parse(Text);
    if (!V) {
      consumeError(V.takeError());
      return std::nullopt;
    }
    return std::move(*V);
  }
};

} // namespace

std::optional<json::Object> scanMetadataMembers(StringRef Text) {
  return MemberScan(Text).run();
}

} // namespace gestell
