//===- TtgirAttributes.cpp - Attributes of TTGIR: literals to layouts -----===//
//
// Attributes as MLIR prints them: dictionaries, arrays, strings, symbols,
// numbers, aliases (resolved to their definition), dialect attributes
// (#ttg.blocked<{...}> read into entries, other bodies kept as text) and
// types used as attributes. Forms the checks do not look into (dense<...>,
// affine_map<...>) are kept as text.
//
//===----------------------------------------------------------------------===//
#include "readers/ttgir/TtgirParser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <utility>

using namespace llvm;

namespace gestell::ttgir {

/// Builtin type names that can stand where an attribute is expected.
static bool isTypeKeyword(StringRef Id) {
  if (Id == "tensor" || Id == "vector" || Id == "memref" || Id == "complex" ||
      Id == "tuple" || Id == "none" || Id == "index" || Id == "bf16" ||
      Id == "tf32")
    return true;
  StringRef Rest = Id;
  if (Rest.consume_front("si") || Rest.consume_front("ui") ||
      Rest.consume_front("i"))
    return !Rest.empty() &&
           llvm::all_of(Rest, [](char C) { return llvm::isDigit(C); });
  // f16, f32, f8E4M3FN, f4E2M1FN, ...
  return Id.size() > 1 && Id[0] == 'f' && llvm::isDigit(Id[1]);
}

const Attribute *Parser::parseAttribute() {
  Nest N(*this);
  if (!N.Ok)
    return nullptr;
  skipHSpace();
  const char *S = P;
  char C = peek();
  switch (C) {
  case '#':
    return parseHashAttribute(S);
  case '{':
    return parseDictionary();
  case '[':
    return parseArrayAttribute(S);
  case '"':
    return parseStringAttribute(S);
  case '@':
    return parseSymbolAttribute(S);
  case '!':
    return parseTypeAttribute(S);
  default:
    break;
  }
  if (llvm::isDigit(C) || C == '-' || C == '+')
    return parseNumber();
  if (isIdStart(C))
    return parseKeywordAttribute(S);
  fail(S, "expected an attribute");
  return nullptr;
}

void Parser::parseLiteralType(Attribute *A) {
  // `: type` after a literal, as in {axis = 1 : i32}.
  const char *Save = P;
  skipHSpace();
  if (peek() == ':' && peek(1) != ':') {
    ++P;
    skipHSpace();
    A->ValueType = parseType();
    return;
  }
  P = Save;
}

const Attribute *Parser::parseNumber() {
  const char *S = P;
  Attribute *A = I.make<Attribute>();
  if (*P == '-' || *P == '+')
    ++P;
  bool IsFloat = false;
  if (startsWith("0x") || startsWith("0X")) {
    P += 2;
    while (P < E && llvm::isHexDigit(*P))
      ++P;
  } else {
    while (P < E &&
           (llvm::isDigit(*P) || *P == '.' || *P == 'e' || *P == 'E' ||
            ((*P == '-' || *P == '+') && (P[-1] == 'e' || P[-1] == 'E')))) {
      if (*P == '.' || *P == 'e' || *P == 'E')
        IsFloat = true;
      ++P;
    }
  }
  A->Spelling = StringRef(S, P - S);
  if (IsFloat) {
    A->K = Attribute::Kind::Float;
    A->Float = std::strtod(std::string(A->Spelling).c_str(), nullptr);
  } else {
    A->K = Attribute::Kind::Integer;
    StringRef Digits = A->Spelling;
    bool Neg = Digits.consume_front("-");
    Digits.consume_front("+");
    uint64_t U = 0;
    bool Hex = Digits.starts_with_insensitive("0x");
    // getAsInteger fails (returns true) when the value needs more than 64
    // bits. Hex is a bit pattern (0xFFFFFFFFFFFFFFFF : i64 is -1); decimal
    // must fit in int64.
    uint64_t Limit = uint64_t(INT64_MAX) + (Neg ? 1 : 0);
    if ((Hex ? Digits.drop_front(2).getAsInteger(16, U)
             : Digits.getAsInteger(10, U)) ||
        (!Hex && U > Limit)) {
      failBounds(S, "integer " + A->Spelling + " does not fit in 64 bits");
      return nullptr;
    }
    A->Int = Neg ? int64_t(0 - U) : int64_t(U);
  }
  parseLiteralType(A);
  return finish(A, S);
}

bool Parser::parseNamedAttribute(SmallVectorImpl<NamedAttribute> &Out) {
  NamedAttribute NA;
  if (peek() == '"') {
    NA.Name = lexString();
  } else {
    NA.Name = lexBareId();
    if (NA.Name.empty())
      return fail(P, "expected an attribute name");
  }
  if (failed())
    return false;
  skipHSpace();
  if (peek() == '=') {
    ++P;
    NA.Value = parseAttribute();
    if (!NA.Value)
      return false;
  } else {
    Attribute *U = newAttribute(Attribute::Kind::Unit);
    U->Text = NA.Name;
    NA.Value = U;
  }
  Out.push_back(NA);
  return true;
}

bool Parser::parseDictEntries(SmallVectorImpl<NamedAttribute> &Out) {
  return parseCommaSeparatedList(
      Delimiter::Braces, [&] { return parseNamedAttribute(Out); },
      "in attribute dictionary");
}

const Attribute *Parser::parseDictionary() {
  const char *S = P;
  SmallVector<NamedAttribute, 8> Entries;
  if (!parseDictEntries(Entries))
    return nullptr;
  Attribute *A = newAttribute(Attribute::Kind::Dictionary);
  A->Entries = I.copy<NamedAttribute>(Entries);
  return finish(A, S);
}

bool Parser::parseDialectBody(Attribute *A) {
  // Entries: `<k = v, ...>`, or a dictionary first, as in
  // `#ttg.shared_linear<{offset = ...}, alignment = 128>`. Any other body
  // is kept as text.
  const char *Open = P;
  ++P;
  skipHSpace();
  bool HasEntries = peek() == '{';
  if (!HasEntries) {
    StringRef Key = lexBareId();
    skipHSpace();
    HasEntries = !Key.empty() && peek() == '=' && peek(1) != '=';
  }
  P = Open;
  if (!HasEntries) {
    if (!skipAngle())
      return false;
    A->OpaqueBody = StringRef(Open + 1, P - Open - 2);
    return true;
  }
  SmallVector<NamedAttribute, 8> Entries;
  bool First = true;
  auto ParseEntry = [&] {
    if (std::exchange(First, false) && peek() == '{')
      return parseDictEntries(Entries);
    return parseNamedAttribute(Entries);
  };
  if (!parseCommaSeparatedList(Delimiter::LessGreater, ParseEntry,
                               "in attribute dictionary"))
    return false;
  A->Entries = I.copy<NamedAttribute>(Entries);
  return true;
}

/// `#alias` (its definition) or `#dialect.name<...>`.
const Attribute *Parser::parseHashAttribute(const char *S) {
  ++P;
  StringRef Id = lexBareId();
  if (Id.empty()) {
    fail(S, "expected an attribute name after '#'");
    return nullptr;
  }
  if (!Id.contains('.')) {
    StringRef Name(S, P - S);
    auto It = I.Aliases.find(Name);
    if (It == I.Aliases.end()) {
      fail(S, "use of undefined attribute alias " + Name);
      return nullptr;
    }
    return It->second;
  }
  // One with a body, outside an alias definition, is read once per module
  // (AttrCache): looked up by its text, the name and its brackets, which
  // end where a type's would (scanTypeEnd).
  bool Shared = peek() == '<' && !InAliasBody;
  StringRef Text;
  uint32_t Hash = 0;
  if (Shared) {
    Text = StringRef(S, scanTypeEnd(S + 1) - S);
    Hash = AttrCache.hash(Text);
    if (const Attribute **Cached = AttrCache.find(Text, Hash)) {
      P = Text.end();
      return *Cached;
    }
  }
  Attribute *A = newAttribute(Attribute::Kind::Dialect);
  A->Spelling = Id;
  if (peek() == '<' && !parseDialectBody(A))
    return nullptr;
  finish(A, S);
  if (Shared && A->Text == Text) {
    bool New;
    AttrCache.insert(Text, Hash, New) = A;
  }
  return A;
}

const Attribute *Parser::parseArrayAttribute(const char *S) {
  SmallVector<const Attribute *, 8> Elts;
  if (!parseCommaSeparatedList(
          Delimiter::Square, [&] { return append(Elts, parseAttribute()); },
          "in the array"))
    return nullptr;
  Attribute *A = newAttribute(Attribute::Kind::Array);
  A->Elements = I.copy<const Attribute *>(Elts);
  return finish(A, S);
}

/// `array<i32: 1, 2>`.
const Attribute *Parser::parseDenseArray(const char *S) {
  ++P; // <
  skipHSpace();
  const Type *ElTy = parseType();
  if (!ElTy)
    return nullptr;
  SmallVector<const Attribute *, 8> Elts;
  if (consume(':') && !parseCommaSeparatedList(Delimiter::None, [&] {
        return append(Elts, parseAttribute());
      }))
    return nullptr;
  if (!expect('>', "to close array<>"))
    return nullptr;
  Attribute *A = newAttribute(Attribute::Kind::Array);
  A->ValueType = ElTy;
  A->Elements = I.copy<const Attribute *>(Elts);
  return finish(A, S);
}

const Attribute *Parser::parseStringAttribute(const char *S) {
  Attribute *A = newAttribute(Attribute::Kind::String);
  A->Spelling = lexString();
  if (failed())
    return nullptr;
  parseLiteralType(A);
  return finish(A, S);
}

const Attribute *Parser::parseSymbolAttribute(const char *S) {
  ++P;
  Attribute *A = newAttribute(Attribute::Kind::Symbol);
  if (peek() == '"') {
    A->Spelling = lexString();
  } else {
    const char *B = P;
    while (P < E && (isValueIdChar(*P) || *P == ':' || *P == '@'))
      ++P;
    A->Spelling = StringRef(B, P - B);
  }
  return finish(A, S);
}

/// true, false, unit, array<...>, a builtin type, or a keyword form kept as
/// text (dense<...> : type, affine_map<...>).
const Attribute *Parser::parseKeywordAttribute(const char *S) {
  StringRef Id = lexBareId();
  if (Id == "true" || Id == "false") {
    Attribute *A = newAttribute(Attribute::Kind::Bool);
    A->Int = Id == "true";
    A->Spelling = Id;
    parseLiteralType(A);
    return finish(A, S);
  }
  if (Id == "unit") {
    Attribute *A = newAttribute(Attribute::Kind::Unit);
    A->Text = Id;
    return A;
  }
  if (Id == "array" && peek() == '<')
    return parseDenseArray(S);
  if (isTypeKeyword(Id)) {
    P = S;
    return parseTypeAttribute(S);
  }
  if (peek() == '<' && !skipAngle())
    return nullptr;
  Attribute *A = newAttribute(Attribute::Kind::Opaque);
  A->Spelling = Id;
  parseLiteralType(A);
  return finish(A, S);
}

const Attribute *Parser::parseTypeAttribute(const char *S) {
  const Type *T = parseType();
  if (!T)
    return nullptr;
  Attribute *A = newAttribute(Attribute::Kind::Type);
  A->ValueType = T;
  return finish(A, S);
}

} // namespace gestell::ttgir
