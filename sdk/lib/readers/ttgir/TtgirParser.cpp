//===- TtgirParser.cpp - MLIR text (as Triton prints it) to a graph ------===//
//
// A single pass over the text with a hand-written scanner (no regex): every
// printed op shares `results = name operands {attrs} regions : types loc()`,
// in custom or generic form, so the scanner reads that shape without knowing
// each op's syntax. Attributes, types and locations have small recursive
// parsers. Type texts are interned, so the thousands of identical tensor
// types in a kernel are parsed once. Operands are resolved when their name
// scope (a function, or another isolated region) closes, which also catches
// uses of undefined values.
//
//===----------------------------------------------------------------------===//
#include "readers/ttgir/TtgirImpl.h"

#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/Layout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace gestell {
namespace {

// Character classes by table: the lexer's hot loops make no libc call
// and no locale lookup per byte.
enum CharClass : uint8_t { IdStart = 1, IdChar = 2, ValueIdChar = 4 };
constexpr std::array<uint8_t, 256> CharClasses = [] {
  std::array<uint8_t, 256> T{};
  for (unsigned C = 0; C < 256; ++C) {
    bool Alpha = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z');
    bool Digit = C >= '0' && C <= '9';
    if (Alpha || C == '_')
      T[C] |= IdStart;
    if (Alpha || Digit || C == '_' || C == '$' || C == '.')
      T[C] |= IdChar | ValueIdChar;
    if (C == '-')
      T[C] |= ValueIdChar;
  }
  return T;
}();
inline bool isIdStart(char C) { return CharClasses[(unsigned char)C] & IdStart; }
inline bool isIdChar(char C) { return CharClasses[(unsigned char)C] & IdChar; }
inline bool isValueIdChar(char C) {
  return CharClasses[(unsigned char)C] & ValueIdChar;
}

/// Builtin type names that can stand where an attribute is expected.
bool isTypeKeyword(StringRef Id) {
  if (Id == "tensor" || Id == "vector" || Id == "memref" || Id == "complex" ||
      Id == "tuple" || Id == "none" || Id == "index" || Id == "bf16" ||
      Id == "tf32")
    return true;
  StringRef Rest = Id;
  if (Rest.consume_front("si") || Rest.consume_front("ui") ||
      Rest.consume_front("i"))
    return !Rest.empty() && llvm::all_of(Rest, [](char C) {
      return llvm::isDigit(C);
    });
  // f16, f32, f8E4M3FN, f4E2M1FN, ...
  return Id.size() > 1 && Id[0] == 'f' && llvm::isDigit(Id[1]);
}

/// Ops whose regions start a new value-name scope (isolated from above).
bool isIsolatedOp(StringRef Name) {
  return Name == "tt.func" || Name == "func.func" || Name == "builtin.module" ||
         Name == "module";
}

/// Bounds on numbers read from the text: a shape dimension fits in 32 bits
/// (Triton's tensors and buffers are far smaller), an op has at most 2^16
/// results, a shaped type at most 2^62 elements. Beyond them the input is
/// a located error, never an overflow or an allocation the file's size does
/// not justify.
constexpr uint64_t MaxDim = INT32_MAX;
constexpr uint64_t MaxResults = 1 << 16;
constexpr int64_t MaxElements = int64_t(1) << 62;

class Parser {
public:
  Parser(TtgirModule &M, StringRef Path)
      : M(M), I(*M.I), Path(Path), Buf(I.Text), P(Buf.begin()), E(Buf.end()) {}

  Error run();

private:
  struct PendingUse {
    Value **Slot;
    StringRef Name;
    int Sub; ///< -1: no #N
    const char *Pos;
  };
  /// Value names are scoped by region, as MLIR prints them: sibling regions
  /// reuse names, and an isolated region (a function) sees nothing outside.
  struct Scope {
    StringMap<ArrayRef<Value *>> Names;
    std::vector<PendingUse> Deferred; ///< forward references
    bool Isolated = false;
  };

  TtgirModule &M;
  TtgirModule::Impl &I;
  StringRef Path;
  StringRef Buf;
  const char *P, *E;

  // First failure: where and what. Parsing stops at the first one.
  const char *FailPos = nullptr;
  std::string FailMsg;
  bool BoundsFailure = false; ///< the failure is a number out of bounds

  StringMap<const Type *> TypeCache;
  /// Nesting of attributes, types, locations and regions: bounded so that
  /// hostile input cannot exhaust the stack.
  unsigned Depth = 0;
  static constexpr unsigned MaxDepth = 256;
  struct Nest {
    Parser &Ps;
    bool Ok;
    explicit Nest(Parser &Ps) : Ps(Ps), Ok(++Ps.Depth <= MaxDepth) {
      if (!Ok)
        Ps.fail(Ps.P, "nesting deeper than " + Twine(MaxDepth) + " levels");
    }
    ~Nest() { --Ps.Depth; }
  };
  std::vector<Location *> AliasLocs; ///< resolved after the whole file
  std::vector<Scope> Scopes;

  // -- errors ---------------------------------------------------------------
  bool fail(const char *Pos, const Twine &Msg) {
    if (!FailPos) {
      FailPos = Pos ? Pos : P;
      FailMsg = Msg.str();
    }
    return false;
  }
  bool failed() const { return FailPos != nullptr; }
  /// A failure that text read leniently (an op's result types) must not
  /// swallow: a number out of bounds.
  bool failBounds(const char *Pos, const Twine &Msg) {
    if (!FailPos)
      BoundsFailure = true;
    return fail(Pos, Msg);
  }
  std::string where(const char *Pos) const {
    auto [L, C] = M.lineColOf(Pos);
    return formatv("{0}:{1}", L, C).str();
  }

  // -- lexing ---------------------------------------------------------------
  char peek(size_t Ahead = 0) const { return P + Ahead < E ? P[Ahead] : '\0'; }
  /// Decimal digits at P (at least one) as a number no larger than Max; a
  /// larger one is a located error naming What ("a shape dimension").
  template <typename T> bool lexDecimal(T &Out, uint64_t Max, StringRef What) {
    const char *S = P;
    uint64_t V = 0;
    while (P < E && *P >= '0' && *P <= '9') {
      uint64_t D = *P++ - '0';
      if (V > (Max - D) / 10) {
        while (P < E && *P >= '0' && *P <= '9')
          ++P;
        return failBounds(S, What + " " + StringRef(S, P - S) +
                                 " is larger than " + Twine(Max));
      }
      V = V * 10 + D;
    }
    if (P == S)
      return fail(S, "expected digits in " + What);
    Out = T(V);
    return true;
  }
  bool atEnd() const { return P >= E; }
  void skipHSpace() {
    while (P < E && (*P == ' ' || *P == '\t' || *P == '\r'))
      ++P;
  }
  void skipLineComment() {
    while (P < E && *P != '\n')
      ++P;
  }
  /// Spaces, newlines and // comments.
  void skipWS() {
    while (P < E) {
      char C = *P;
      if (C == ' ' || C == '\t' || C == '\r' || C == '\n')
        ++P;
      else if (C == '/' && peek(1) == '/')
        skipLineComment();
      else
        break;
    }
  }
  bool consume(char C) {
    skipHSpace();
    if (peek() != C)
      return false;
    ++P;
    return true;
  }
  bool expect(char C, StringRef What) {
    if (consume(C))
      return true;
    return fail(P, Twine("expected '") + Twine(C) + "' " + What);
  }
  bool startsWith(StringRef S) const {
    return size_t(E - P) >= S.size() && StringRef(P, S.size()) == S;
  }
  StringRef lexBareId() {
    const char *S = P;
    if (P < E && isIdStart(*P)) {
      ++P;
      while (P < E && isIdChar(*P))
        ++P;
    }
    return StringRef(S, P - S);
  }
  /// A string literal at P (the quotes included in the skipped range);
  /// returns the contents, escapes kept.
  StringRef lexString() {
    const char *S = P;
    ++P; // "
    while (P < E && *P != '"') {
      if (*P == '\\' && P + 1 < E)
        ++P;
      if (*P == '\n')
        break;
      ++P;
    }
    if (P >= E || *P != '"') {
      fail(S, "unterminated string");
      return {};
    }
    ++P;
    return StringRef(S + 1, P - S - 2);
  }
  /// Skips a balanced <...> starting at '<' (nested (), [], {}, strings;
  /// `->` does not close).
  bool skipAngle() {
    const char *S = P;
    int Depth = 0;
    while (P < E) {
      char C = *P;
      if (C == '"') {
        lexString();
        if (failed())
          return false;
        continue;
      }
      if (C == '\n')
        break;
      if (C == '-' && peek(1) == '>') {
        P += 2;
        continue;
      }
      if (C == '<' || C == '(' || C == '[' || C == '{')
        ++Depth;
      else if (C == '>' || C == ')' || C == ']' || C == '}') {
        if (--Depth == 0) {
          ++P;
          return true;
        }
      }
      ++P;
    }
    return fail(S, "unbalanced '<'");
  }

  // -- attributes -------------------------------------------------------------
  const Attribute *parseAttribute();
  const Attribute *parseDictionary(); // at '{'
  bool parseDictEntries(SmallVectorImpl<NamedAttribute> &Out, char Close);
  bool parseDialectBody(Attribute *A); // at '<'
  const Attribute *parseNumber();
  void parseLiteralType(Attribute *A);

  // -- types ------------------------------------------------------------------
  const Type *parseType();
  const Type *parseTypeUncached(const char *S);
  bool parseShapeAndElement(SmallVectorImpl<int64_t> &Shape, const Type *&Elem);
  bool parseMemDescBody(Type *T);
  const char *scanTypeEnd(const char *Q) const;
  bool parseTypeList(SmallVectorImpl<const Type *> &Out, bool AllowParens);

  // -- locations --------------------------------------------------------------
  const Location *parseLoc(); // at "loc("
  const Location *parseLocInner();

  // -- structure --------------------------------------------------------------
  bool parseOperation(Block *B, SmallVectorImpl<Operation *> &Ops);
  bool parseRegion(Operation *Owner, unsigned Index, ArrayRef<Value *> Args,
                   const char *OpenPos, Region *&Out);
  bool parseBlockLabel(StringRef &Label, SmallVectorImpl<Value *> &Args);
  Value *parseBlockArgDef(const char *NameStart, StringRef Name);
  bool nextLineContinuesOp() const;
  void assignResultTypes(Operation *Op, const char *ArrowPos,
                         const char *ColonPos, const char *ToPos,
                         bool BoolLiteral);
  void assignRegionArgTypes(Operation *Op, const char *ColonPos);
  const Type *synthesize(const Type *Like, const Type *Elem);
  const Type *scalarType(StringRef Name);
  bool defineValues(ArrayRef<Value *> Vals, StringRef Name, const char *Pos);
  const ArrayRef<Value *> *lookup(StringRef Name) const;
  bool bind(const PendingUse &U, ArrayRef<Value *> Group);
  void openScope(bool Isolated) {
    Scopes.emplace_back();
    Scopes.back().Isolated = Isolated;
  }
  bool closeScope();
  bool resolveLocations();
  void computeUses();
};

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

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
           (llvm::isDigit(*P) || *P == '.' || *P == 'e' ||
            *P == 'E' ||
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
    if (Hex ? Digits.drop_front(2).getAsInteger(16, U)
            : Digits.getAsInteger(10, U)) {
      failBounds(S, "integer " + A->Spelling + " does not fit in 64 bits");
      return nullptr;
    }
    uint64_t Limit = uint64_t(INT64_MAX) + (Neg ? 1 : 0);
    if (!Hex && U > Limit) {
      failBounds(S, "integer " + A->Spelling + " does not fit in 64 bits");
      return nullptr;
    }
    A->Int = Neg ? int64_t(0 - U) : int64_t(U);
  }
  parseLiteralType(A);
  A->Text = StringRef(S, P - S);
  return A;
}

bool Parser::parseDictEntries(SmallVectorImpl<NamedAttribute> &Out,
                              char Close) {
  skipWS();
  if (peek() == Close) {
    ++P;
    return true;
  }
  while (true) {
    skipWS();
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
      Attribute *U = I.make<Attribute>();
      U->K = Attribute::Kind::Unit;
      U->Text = NA.Name;
      NA.Value = U;
    }
    Out.push_back(NA);
    skipWS();
    if (peek() == ',') {
      ++P;
      continue;
    }
    if (peek() == Close) {
      ++P;
      return true;
    }
    return fail(P, Twine("expected ',' or '") + Twine(Close) +
                       "' in attribute dictionary");
  }
}

const Attribute *Parser::parseDictionary() {
  const char *S = P;
  ++P; // {
  SmallVector<NamedAttribute, 8> Entries;
  if (!parseDictEntries(Entries, '}'))
    return nullptr;
  Attribute *A = I.make<Attribute>();
  A->K = Attribute::Kind::Dictionary;
  A->Entries = I.copy<NamedAttribute>(Entries);
  A->Text = StringRef(S, P - S);
  return A;
}

bool Parser::parseDialectBody(Attribute *A) {
  const char *Open = P;
  ++P; // <
  skipHSpace();
  if (peek() == '{') {
    ++P;
    SmallVector<NamedAttribute, 8> Entries;
    if (!parseDictEntries(Entries, '}'))
      return false;
    // Parameters after the dictionary: `#ttg.shared_linear<{offset = ...},
    // alignment = 128>`.
    skipWS();
    if (peek() == ',') {
      ++P;
      if (!parseDictEntries(Entries, '>'))
        return false;
    } else if (!expect('>', "to close the attribute")) {
      return false;
    }
    A->Entries = I.copy<NamedAttribute>(Entries);
    return true;
  }
  // key = value, ... ?
  const char *Save = P;
  StringRef Key = lexBareId();
  skipHSpace();
  bool KeyValue = !Key.empty() && peek() == '=' && peek(1) != '=';
  P = Save;
  if (KeyValue) {
    SmallVector<NamedAttribute, 8> Entries;
    if (!parseDictEntries(Entries, '>'))
      return false;
    A->Entries = I.copy<NamedAttribute>(Entries);
    return true;
  }
  P = Open;
  if (!skipAngle())
    return false;
  A->OpaqueBody = StringRef(Open + 1, P - Open - 2);
  return true;
}

const Attribute *Parser::parseAttribute() {
  Nest N(*this);
  if (!N.Ok)
    return nullptr;
  skipHSpace();
  const char *S = P;
  char C = peek();
  if (C == '#') {
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
    Attribute *A = I.make<Attribute>();
    A->K = Attribute::Kind::Dialect;
    A->Spelling = Id;
    if (peek() == '<' && !parseDialectBody(A))
      return nullptr;
    A->Text = StringRef(S, P - S);
    return A;
  }
  if (C == '{')
    return parseDictionary();
  if (C == '[') {
    ++P;
    SmallVector<const Attribute *, 8> Elts;
    skipWS();
    if (peek() != ']') {
      while (true) {
        skipWS();
        const Attribute *El = parseAttribute();
        if (!El)
          return nullptr;
        Elts.push_back(El);
        skipWS();
        if (peek() == ',') {
          ++P;
          continue;
        }
        break;
      }
    }
    if (!expect(']', "to close the array"))
      return nullptr;
    Attribute *A = I.make<Attribute>();
    A->K = Attribute::Kind::Array;
    A->Elements = I.copy<const Attribute *>(Elts);
    A->Text = StringRef(S, P - S);
    return A;
  }
  if (C == '"') {
    Attribute *A = I.make<Attribute>();
    A->K = Attribute::Kind::String;
    A->Spelling = lexString();
    if (failed())
      return nullptr;
    parseLiteralType(A);
    A->Text = StringRef(S, P - S);
    return A;
  }
  if (C == '@') {
    ++P;
    Attribute *A = I.make<Attribute>();
    A->K = Attribute::Kind::Symbol;
    if (peek() == '"')
      A->Spelling = lexString();
    else {
      const char *B = P;
      while (P < E && (isValueIdChar(*P) || *P == ':' || *P == '@'))
        ++P;
      A->Spelling = StringRef(B, P - B);
    }
    A->Text = StringRef(S, P - S);
    return A;
  }
  if (llvm::isDigit(C) || C == '-' || C == '+')
    return parseNumber();
  if (isIdStart(C)) {
    const char *Save = P;
    StringRef Id = lexBareId();
    if (Id == "true" || Id == "false") {
      Attribute *A = I.make<Attribute>();
      A->K = Attribute::Kind::Bool;
      A->Int = Id == "true";
      A->Spelling = Id;
      parseLiteralType(A);
      A->Text = StringRef(S, P - S);
      return A;
    }
    if (Id == "unit") {
      Attribute *A = I.make<Attribute>();
      A->K = Attribute::Kind::Unit;
      A->Text = Id;
      return A;
    }
    if (Id == "array" && peek() == '<') {
      // array<i32: 1, 2>
      ++P;
      skipHSpace();
      const Type *ElTy = parseType();
      if (!ElTy)
        return nullptr;
      SmallVector<const Attribute *, 8> Elts;
      skipHSpace();
      if (peek() == ':') {
        ++P;
        while (true) {
          skipHSpace();
          if (peek() == '>')
            break;
          const Attribute *El = parseAttribute();
          if (!El)
            return nullptr;
          Elts.push_back(El);
          skipHSpace();
          if (peek() == ',') {
            ++P;
            continue;
          }
          break;
        }
      }
      if (!expect('>', "to close array<>"))
        return nullptr;
      Attribute *A = I.make<Attribute>();
      A->K = Attribute::Kind::Array;
      A->ValueType = ElTy;
      A->Elements = I.copy<const Attribute *>(Elts);
      A->Text = StringRef(S, P - S);
      return A;
    }
    if (isTypeKeyword(Id)) {
      P = Save;
      const Type *T = parseType();
      if (!T)
        return nullptr;
      Attribute *A = I.make<Attribute>();
      A->K = Attribute::Kind::Type;
      A->ValueType = T;
      A->Text = StringRef(S, P - S);
      return A;
    }
    // dense<...> : type, affine_map<...>, other keyword forms: keep as text.
    if (peek() == '<' && !skipAngle())
      return nullptr;
    Attribute *A = I.make<Attribute>();
    A->K = Attribute::Kind::Opaque;
    A->Spelling = Id;
    parseLiteralType(A);
    A->Text = StringRef(S, P - S);
    return A;
  }
  if (C == '!') {
    const Type *T = parseType();
    if (!T)
      return nullptr;
    Attribute *A = I.make<Attribute>();
    A->K = Attribute::Kind::Type;
    A->ValueType = T;
    A->Text = StringRef(S, P - S);
    return A;
  }
  fail(S, "expected an attribute");
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Where the type starting at Q ends, without building it (for the cache).
const char *Parser::scanTypeEnd(const char *Q) const {
  auto SkipAngle = [&](const char *R) {
    int Depth = 0;
    while (R < E && *R != '\n') {
      char C = *R;
      if (C == '"') {
        ++R;
        while (R < E && *R != '"' && *R != '\n')
          R += (*R == '\\') ? 2 : 1;
        ++R;
        continue;
      }
      if (C == '-' && R + 1 < E && R[1] == '>') {
        R += 2;
        continue;
      }
      if (C == '<' || C == '(' || C == '[' || C == '{')
        ++Depth;
      else if (C == '>' || C == ')' || C == ']' || C == '}') {
        if (--Depth == 0)
          return R + 1;
      }
      ++R;
    }
    return R;
  };
  if (Q < E && *Q == '!')
    ++Q;
  while (Q < E && isIdChar(*Q))
    ++Q;
  if (Q < E && *Q == '<')
    Q = SkipAngle(Q);
  return Q;
}

const Type *Parser::scalarType(StringRef Name) {
  auto It = TypeCache.find(Name);
  if (It != TypeCache.end())
    return It->second;
  Type *T = I.make<Type>();
  T->K = Type::Kind::Scalar;
  T->Name = T->Text = Name; // Name must outlive: literals or file text
  TypeCache[Name] = T;
  return T;
}

bool Parser::parseShapeAndElement(SmallVectorImpl<int64_t> &Shape,
                                  const Type *&Elem) {
  while (P < E && (llvm::isDigit(*P) || *P == '?')) {
    if (*P == '?') {
      Shape.push_back(-1);
      ++P;
    } else {
      int64_t V = 0;
      if (!lexDecimal(V, MaxDim, "a shape dimension"))
        return false;
      Shape.push_back(V);
    }
    if (peek() != 'x')
      return fail(P, "expected 'x' in a shape");
    ++P;
  }
  int64_t Elements = 1;
  for (int64_t D : Shape)
    if (D > 0 && Elements > MaxElements / D)
      return failBounds(P, "a shaped type of more than 2^62 elements");
    else if (D > 0)
      Elements *= D;
  Elem = parseType();
  return Elem != nullptr;
}

bool Parser::parseMemDescBody(Type *T) {
  // After '<': shape x element, then encoding, memory space, `mutable`,
  // an allocation shape, in any order of the last two.
  SmallVector<int64_t, 4> Shape;
  T->K = Type::Kind::MemDesc;
  if (!parseShapeAndElement(Shape, T->Element))
    return false;
  T->Shape = I.copy<int64_t>(Shape);
  int AttrNo = 0;
  while (true) {
    skipHSpace();
    if (peek() != ',')
      break;
    ++P;
    skipHSpace();
    if (peek() == '#') {
      const Attribute *A = parseAttribute();
      if (!A)
        return false;
      (AttrNo++ == 0 ? T->Encoding : T->MemorySpace) = A;
    } else if (startsWith("mutable")) {
      P += 7;
      T->Mutable = true;
    } else if (llvm::isDigit(peek())) {
      SmallVector<int64_t, 4> Alloc;
      while (P < E && llvm::isDigit(*P)) {
        int64_t V = 0;
        if (!lexDecimal(V, MaxDim, "an allocation-shape dimension"))
          return false;
        Alloc.push_back(V);
        if (peek() == 'x')
          ++P;
      }
      T->AllocShape = I.copy<int64_t>(Alloc);
    } else if (!parseAttribute()) {
      return false;
    }
  }
  return expect('>', "to close the memory descriptor type");
}

const Type *Parser::parseTypeUncached(const char *S) {
  Type *T = I.make<Type>();
  SmallVector<int64_t, 4> Shape;
  if (peek() == '!') {
    ++P;
    StringRef Id = lexBareId();
    T->Name = Id;
    if (peek() != '<') {
      StringRef Name(S, P - S);
      auto It = I.TypeAliases.find(Name);
      if (It != I.TypeAliases.end())
        return It->second;
      T->K = Type::Kind::Other;
      T->Text = Name;
      return T;
    }
    if (Id == "tt.ptr") {
      ++P;
      T->K = Type::Kind::Pointer;
      T->Element = parseType();
      if (!T->Element)
        return nullptr;
      skipHSpace();
      if (peek() == ',') {
        ++P;
        skipHSpace();
        unsigned AS = 0;
        if (llvm::isDigit(peek()) &&
            !lexDecimal(AS, 255, "an address space"))
          return nullptr;
        T->AddressSpace = AS;
      }
      if (!expect('>', "to close !tt.ptr<>"))
        return nullptr;
    } else if (Id == "ttg.memdesc") {
      ++P;
      if (!parseMemDescBody(T))
        return nullptr;
    } else if (Id == "tt.tensordesc") {
      ++P;
      T->K = Type::Kind::TensorDesc;
      T->Element = parseType();
      if (!T->Element || !expect('>', "to close !tt.tensordesc<>"))
        return nullptr;
    } else {
      T->K = Type::Kind::Other;
      if (!skipAngle())
        return nullptr;
    }
  } else if (isIdStart(peek())) {
    StringRef Id = lexBareId();
    T->Name = Id;
    if (Id == "tensor" && peek() == '<') {
      ++P;
      T->K = Type::Kind::Tensor;
      if (!parseShapeAndElement(Shape, T->Element))
        return nullptr;
      skipHSpace();
      if (peek() == ',') {
        ++P;
        skipHSpace();
        T->Encoding = parseAttribute();
        if (!T->Encoding)
          return nullptr;
      }
      if (!expect('>', "to close tensor<>"))
        return nullptr;
    } else if (peek() == '<') {
      T->K = Type::Kind::Other;
      if (!skipAngle())
        return nullptr;
    } else {
      T->K = Type::Kind::Scalar;
    }
  } else if (peek() == '<') {
    // A memory descriptor printed without its `!ttg.memdesc` prefix, as
    // some custom op formats do: `-> <128x64xbf16, #shared, #smem>`.
    ++P;
    T->Name = "ttg.memdesc";
    if (!parseMemDescBody(T))
      return nullptr;
    T->Text = StringRef(S, P - S);
    return T;
  } else if (peek() == '(') {
    // A function type used as a type: (a, b) -> c. Kept as text.
    int Depth = 0;
    while (P < E && *P != '\n') {
      if (*P == '(')
        ++Depth;
      else if (*P == ')' && --Depth == 0) {
        ++P;
        break;
      }
      ++P;
    }
    T->K = Type::Kind::Other;
  } else {
    fail(S, "expected a type");
    return nullptr;
  }
  if (!Shape.empty())
    T->Shape = I.copy<int64_t>(Shape);
  T->Text = StringRef(S, P - S);
  return T;
}

const Type *Parser::parseType() {
  Nest N(*this);
  if (!N.Ok)
    return nullptr;
  skipHSpace();
  const char *S = P;
  const char *End = scanTypeEnd(S);
  StringRef Text(S, End - S);
  if (!Text.empty()) {
    auto It = TypeCache.find(Text);
    if (It != TypeCache.end()) {
      P = End;
      return It->second;
    }
  }
  const Type *T = parseTypeUncached(S);
  if (T && !Text.empty() && T->Text == Text)
    TypeCache[Text] = T;
  return T;
}

/// A type list: `(T, U)` (when AllowParens) or `T, U`.
bool Parser::parseTypeList(SmallVectorImpl<const Type *> &Out,
                           bool AllowParens) {
  skipHSpace();
  if (AllowParens && peek() == '(') {
    ++P;
    skipHSpace();
    if (peek() == ')') {
      ++P;
      return true;
    }
    while (true) {
      const Type *T = parseType();
      if (!T)
        return false;
      Out.push_back(T);
      skipHSpace();
      if (peek() == ',') {
        ++P;
        continue;
      }
      return expect(')', "to close the type list");
    }
  }
  while (true) {
    const Type *T = parseType();
    if (!T)
      return false;
    Out.push_back(T);
    const char *Save = P;
    skipHSpace();
    if (peek() == ',') {
      ++P;
      skipHSpace();
      // Stop at what is not a type (e.g. `: i32, i32 loc(...)` is fine).
      char C = peek();
      if (C == '!' || isIdStart(C) || C == '(')
        continue;
    }
    P = Save;
    return true;
  }
}

const Type *Parser::synthesize(const Type *Like, const Type *Elem) {
  if (!Like || Like->K != Type::Kind::Tensor)
    return Elem;
  Type *T = I.make<Type>();
  *T = *Like;
  T->Text = {};
  T->Element = Elem;
  return T;
}

//===----------------------------------------------------------------------===//
// Locations
//===----------------------------------------------------------------------===//

const Location *Parser::parseLocInner() {
  Nest N(*this);
  if (!N.Ok)
    return nullptr;
  skipHSpace();
  const char *S = P;
  Location *L = I.make<Location>();
  char C = peek();
  if (C == '#') {
    ++P;
    lexBareId();
    L->K = Location::Kind::Alias;
    L->Name = StringRef(S, P - S);
    AliasLocs.push_back(L);
  } else if (C == '"') {
    StringRef Str = lexString();
    if (failed())
      return nullptr;
    if (peek() == ':' && llvm::isDigit(peek(1))) {
      L->K = Location::Kind::FileLineCol;
      L->File = Str;
      ++P;
      if (!lexDecimal(L->Line, UINT32_MAX, "a line number"))
        return nullptr;
      if (peek() == ':') {
        ++P;
        if (!lexDecimal(L->Column, UINT32_MAX, "a column number"))
          return nullptr;
      }
      // A range ("f":1:2 to 3:4 / to :4) is reduced to its start.
      const char *Save = P;
      skipHSpace();
      if (startsWith("to ") || startsWith("to:")) {
        P += 2;
        skipHSpace();
        while (P < E && (llvm::isDigit(*P) || *P == ':'))
          ++P;
      } else {
        P = Save;
      }
    } else {
      L->K = Location::Kind::Name;
      L->Name = Str;
      if (peek() == '(') {
        ++P;
        L->Child = parseLocInner();
        if (!L->Child || !expect(')', "to close the name location"))
          return nullptr;
      }
    }
  } else if (startsWith("unknown")) {
    P += 7;
    L->K = Location::Kind::Unknown;
  } else if (startsWith("callsite(")) {
    P += 9;
    L->K = Location::Kind::CallSite;
    L->Callee = parseLocInner();
    if (!L->Callee)
      return nullptr;
    skipHSpace();
    if (!startsWith("at")) {
      fail(P, "expected 'at' in callsite location");
      return nullptr;
    }
    P += 2;
    L->Caller = parseLocInner();
    if (!L->Caller || !expect(')', "to close callsite()"))
      return nullptr;
  } else if (startsWith("fused")) {
    P += 5;
    L->K = Location::Kind::Fused;
    if (peek() == '<' && !skipAngle())
      return nullptr;
    if (!expect('[', "in fused location"))
      return nullptr;
    SmallVector<const Location *, 4> Parts;
    while (true) {
      skipHSpace();
      if (peek() == ']')
        break;
      const Location *Part = parseLocInner();
      if (!Part)
        return nullptr;
      Parts.push_back(Part);
      skipHSpace();
      if (peek() == ',') {
        ++P;
        continue;
      }
      break;
    }
    if (!expect(']', "to close fused[]"))
      return nullptr;
    L->Parts = I.copy<const Location *>(Parts);
  } else {
    // Unknown location syntax: keep the text up to the closing ')'.
    int Depth = 0;
    while (P < E && *P != '\n') {
      if (*P == '"') {
        lexString();
        continue;
      }
      if (*P == '(' || *P == '[' || *P == '<')
        ++Depth;
      else if (*P == ')' || *P == ']' || *P == '>') {
        if (Depth == 0)
          break;
        --Depth;
      }
      ++P;
    }
    L->K = Location::Kind::Opaque;
  }
  L->Text = StringRef(S, P - S);
  return L;
}

const Location *Parser::parseLoc() {
  P += 4; // loc(
  const Location *L = parseLocInner();
  if (!L || !expect(')', "to close loc()"))
    return nullptr;
  return L;
}

bool Parser::resolveLocations() {
  for (Location *L : AliasLocs) {
    auto It = I.LocAliases.find(L->Name);
    if (It == I.LocAliases.end())
      return fail(L->Name.data(), "use of undefined location alias " + L->Name);
    L->Target = It->second;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Values and scopes
//===----------------------------------------------------------------------===//

bool Parser::defineValues(ArrayRef<Value *> Vals, StringRef Name,
                          const char *Pos) {
  if (Scopes.empty())
    return fail(Pos, "value %" + Name + " defined outside a function");
  auto [It, Inserted] = Scopes.back().Names.try_emplace(Name, Vals);
  if (!Inserted)
    return fail(Pos, "redefinition of value %" + Name);
  return true;
}

const ArrayRef<Value *> *Parser::lookup(StringRef Name) const {
  for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
    auto Found = It->Names.find(Name);
    if (Found != It->Names.end())
      return &Found->second;
    if (It->Isolated)
      break;
  }
  return nullptr;
}

bool Parser::bind(const PendingUse &U, ArrayRef<Value *> Group) {
  unsigned Idx = U.Sub < 0 ? 0 : unsigned(U.Sub);
  if (Idx >= Group.size())
    return fail(U.Pos, formatv("%{0} has {1} results; #{2} does not exist",
                               U.Name, Group.size(), Idx)
                           .str());
  *U.Slot = Group[Idx];
  return true;
}

bool Parser::closeScope() {
  // Forward references: a value defined later in this region, else one
  // defined later in an enclosing region (retried when that one closes).
  Scope &S = Scopes.back();
  std::vector<PendingUse> Outer;
  for (const PendingUse &U : S.Deferred) {
    auto Found = S.Names.find(U.Name);
    if (Found != S.Names.end()) {
      if (!bind(U, Found->second))
        return false;
      continue;
    }
    if (S.Isolated || Scopes.size() == 1)
      return fail(U.Pos, "use of undefined value %" + U.Name);
    Outer.push_back(U);
  }
  Scopes.pop_back();
  if (!Outer.empty())
    llvm::append_range(Scopes.back().Deferred, Outer);
  return true;
}

Value *Parser::parseBlockArgDef(const char *NameStart, StringRef Name) {
  // At ':' after %name: `%name: type loc(...)`.
  ++P;
  Value *V = I.make<Value>();
  V->Name = Name;
  V->Ty = parseType();
  if (!V->Ty)
    return nullptr;
  skipHSpace();
  if (startsWith("loc(")) {
    V->Loc = parseLoc();
    if (!V->Loc)
      return nullptr;
  }
  I.AllValues.push_back(V);
  return V;
}

bool Parser::parseBlockLabel(StringRef &Label, SmallVectorImpl<Value *> &Args) {
  ++P; // ^
  const char *S = P;
  while (P < E && isValueIdChar(*P))
    ++P;
  Label = StringRef(S, P - S);
  if (peek() == '(') {
    ++P;
    while (true) {
      skipHSpace();
      if (peek() == ')')
        break;
      if (peek() != '%')
        return fail(P, "expected a block argument");
      const char *NS = P;
      ++P;
      const char *B = P;
      while (P < E && isValueIdChar(*P))
        ++P;
      StringRef Name(B, P - B);
      if (peek() != ':')
        return fail(P, "expected ':' after block argument %" + Name);
      Value *V = parseBlockArgDef(NS, Name);
      if (!V)
        return false;
      V->Index = Args.size();
      Args.push_back(V);
      skipHSpace();
      if (peek() == ',') {
        ++P;
        continue;
      }
      break;
    }
    if (!expect(')', "to close the block arguments"))
      return false;
  }
  return expect(':', "after the block label");
}

//===----------------------------------------------------------------------===//
// Operations and regions
//===----------------------------------------------------------------------===//

/// After a newline that ends an op header at depth 0: does the next line
/// continue it (`default {`, `partition0(...) num_warps(4) {` of
/// ttg.warp_specialize)? Op lines start with %, ", ^, } or a dotted name.
bool Parser::nextLineContinuesOp() const {
  // Blank lines and whole-line comments between the parts of an op (a
  // comment between two partitions of ttg.warp_specialize) are skipped.
  const char *Q = P;
  for (;;) {
    while (Q < E && (*Q == ' ' || *Q == '\t' || *Q == '\r' || *Q == '\n'))
      ++Q;
    if (Q + 1 < E && Q[0] == '/' && Q[1] == '/') {
      while (Q < E && *Q != '\n')
        ++Q;
      continue;
    }
    break;
  }
  if (Q >= E || !isIdStart(*Q))
    return false;
  const char *B = Q;
  while (Q < E && (llvm::isAlnum(*Q) || *Q == '_'))
    ++Q;
  StringRef Word(B, Q - B);
  if (Q < E && *Q == '.')
    return false; // dialect.op
  return Word != "module";
}

bool Parser::parseRegion(Operation *Owner, unsigned Index,
                         ArrayRef<Value *> Args, const char *OpenPos,
                         Region *&Out) {
  Nest N(*this);
  if (!N.Ok)
    return false;
  Region *R = I.make<Region>();
  R->Parent = Owner;
  R->Index = Index;
  M.AllRegions.push_back(R);

  SmallVector<Block *, 2> Blocks;
  SmallVector<Operation *, 32> Ops;
  Block *Cur = I.make<Block>();
  Cur->Parent = R;
  SmallVector<Value *, 8> CurArgs(Args.begin(), Args.end());
  auto Finish = [&]() {
    for (auto [N, V] : llvm::enumerate(CurArgs)) {
      V->OwnerBlock = Cur;
      V->Index = N;
    }
    Cur->Args = I.copy<Value *>(CurArgs);
    Cur->Ops = I.copy<Operation *>(Ops);
    Blocks.push_back(Cur);
  };
  bool Labelled = false;
  while (true) {
    skipWS();
    if (atEnd()) {
      auto [L, C] = M.lineColOf(OpenPos);
      return fail(E, formatv("unbalanced region: the '{{' opened at line {0}, "
                             "column {1} is never closed",
                             L, C)
                         .str());
    }
    if (*P == '}') {
      ++P;
      break;
    }
    if (*P == '^') {
      StringRef Label;
      SmallVector<Value *, 8> LabelArgs;
      const char *LabelPos = P;
      if (!parseBlockLabel(Label, LabelArgs))
        return false;
      bool ReuseEntry = Blocks.empty() && Ops.empty() && !Labelled;
      if (!ReuseEntry) {
        Finish();
        Cur = I.make<Block>();
        Cur->Parent = R;
        CurArgs.clear();
        Ops.clear();
      }
      Labelled = true;
      Cur->Label = Label;
      if (!LabelArgs.empty()) {
        if (!CurArgs.empty())
          return fail(LabelPos, "block arguments given twice");
        CurArgs.append(LabelArgs.begin(), LabelArgs.end());
      }
      for (Value *V : LabelArgs)
        if (!defineValues(ArrayRef<Value *>(V).copy(I.Arena), V->Name,
                          LabelPos))
          return false;
      continue;
    }
    if (!parseOperation(Cur, Ops))
      return false;
  }
  Finish();
  R->Blocks = I.copy<Block *>(Blocks);
  Out = R;
  return true;
}

void Parser::assignResultTypes(Operation *Op, const char *ArrowPos,
                               const char *ColonPos, const char *ToPos,
                               bool BoolLiteral) {
  if (Op->Results.empty())
    return;
  const char *Save = P;
  SmallVector<const Type *, 4> Tys;
  bool Ok = true;
  if (ArrowPos) {
    P = ArrowPos;
    Ok = parseTypeList(Tys, /*AllowParens=*/true);
  } else if (ToPos && ToPos > ColonPos) {
    P = ToPos;
    if (const Type *T = parseType())
      Tys.push_back(T);
  } else if (ColonPos) {
    P = ColonPos;
    Ok = parseTypeList(Tys, /*AllowParens=*/false);
  }
  // Result types are derived, not required: text that is not a type leaves
  // them unknown (unknown op syntax is allowed); an undefined alias inside
  // a type is still an error.
  if ((!Ok || failed()) && !BoundsFailure &&
      !StringRef(FailMsg).starts_with("use of undefined")) {
    FailPos = nullptr;
    FailMsg.clear();
    Tys.clear();
  }
  P = Save;
  StringRef N = Op->Name;
  if (Tys.empty()) {
    if (BoolLiteral)
      Tys.push_back(scalarType("i1"));
    else
      return;
  }
  const Type *First = Tys.front();
  if (N == "tt.load" && Tys.size() >= 1) {
    const Type *Ptr = First;
    if (Ptr->K == Type::Kind::Tensor && Ptr->Element &&
        Ptr->Element->K == Type::Kind::Pointer)
      First = synthesize(Ptr, Ptr->Element->Element);
    else if (Ptr->K == Type::Kind::Pointer)
      First = Ptr->Element;
    Tys.assign(1, First);
  } else if (N == "arith.cmpi" || N == "arith.cmpf") {
    Tys.assign(1, synthesize(First, scalarType("i1")));
  } else if (N == "arith.select" || N == "arith.bitcast") {
    Tys.assign(1, Tys.back());
  }
  for (auto [K, V] : llvm::enumerate(Op->Results))
    V->Ty = Tys.size() == Op->Results.size() ? Tys[K] : Tys.front();
}

void Parser::assignRegionArgTypes(Operation *Op, const char *ColonPos) {
  if (Op->Regions.empty() || Op->Regions[0]->Blocks.empty())
    return;
  ArrayRef<Value *> Args = Op->Regions[0]->Blocks[0]->Args;
  const char *Save = P;
  if (Op->Name == "scf.for" && !Args.empty()) {
    if (!Args[0]->Ty && ColonPos) {
      P = ColonPos;
      Args[0]->Ty = parseType();
    } else if (!Args[0]->Ty && Op->Operands.size() >= 1) {
      Args[0]->Ty = nullptr; // from the lower bound, once resolved
    }
    for (size_t K = 1; K < Args.size() && K - 1 < Op->Results.size(); ++K)
      if (!Args[K]->Ty)
        Args[K]->Ty = Op->Results[K - 1]->Ty;
  } else if (Op->Name == "scf.while" && ColonPos) {
    P = ColonPos;
    SmallVector<const Type *, 4> Tys;
    if (parseTypeList(Tys, /*AllowParens=*/true))
      for (size_t K = 0; K < Args.size() && K < Tys.size(); ++K)
        if (!Args[K]->Ty)
          Args[K]->Ty = Tys[K];
  }
  if (failed() && !StringRef(FailMsg).starts_with("use of undefined")) {
    FailPos = nullptr;
    FailMsg.clear();
  }
  P = Save;
}

bool Parser::parseOperation(Block *B, SmallVectorImpl<Operation *> &Ops) {
  const char *S = P;
  Operation *Op = I.make<Operation>();
  Op->ParentBlock = B;
  {
    auto [L, C] = M.lineColOf(S);
    Op->Line = L;
    Op->Column = C;
  }
  M.AllOps.push_back(Op);

  // Results: %a, %b:2 = ...
  struct ResultGroup {
    StringRef Name;
    unsigned Count;
    const char *Pos;
  };
  SmallVector<ResultGroup, 2> Groups;
  if (peek() == '%') {
    while (true) {
      skipHSpace();
      if (peek() != '%')
        return fail(P, "expected a result name");
      const char *GP = P;
      ++P;
      const char *NB = P;
      while (P < E && isValueIdChar(*P))
        ++P;
      StringRef Name(NB, P - NB);
      if (Name.empty())
        return fail(GP, "expected a result name after '%'");
      unsigned Count = 1;
      if (peek() == ':') {
        ++P;
        // Bounded so that a count in a small file cannot make the parser
        // allocate for billions of results.
        if (!lexDecimal(Count, MaxResults, "a result count"))
          return false;
        if (Count == 0)
          return fail(GP, "bad result count");
      }
      Groups.push_back({Name, Count, GP});
      skipHSpace();
      if (peek() == ',') {
        ++P;
        continue;
      }
      break;
    }
    if (!expect('=', "after the results"))
      return false;
    skipHSpace();
  }

  // Name.
  if (peek() == '"') {
    Op->Name = lexString();
    Op->Generic = true;
    if (failed())
      return false;
  } else {
    Op->Name = lexBareId();
    if (Op->Name.empty())
      return fail(P, "expected an operation name");
    if (Op->Name == "module")
      Op->Name = "builtin.module";
  }

  // Results are defined before the op's regions are read (uses in nested
  // regions resolve at scope end anyway).
  SmallVector<Value *, 4> Results;
  for (const ResultGroup &G : Groups) {
    size_t First = Results.size();
    for (unsigned K = 0; K < G.Count; ++K) {
      Value *V = I.make<Value>();
      V->Name = G.Name;
      V->Def = Op;
      V->Index = Results.size();
      Results.push_back(V);
      I.AllValues.push_back(V);
    }
    if (!defineValues(
            ArrayRef<Value *>(Results).slice(First, G.Count).copy(I.Arena),
            G.Name, G.Pos))
      return false;
  }
  Op->Results = I.copy<Value *>(Results);

  // The rest of the op: operands, attributes, regions, types, location.
  SmallVector<PendingUse, 8> Uses; // Slot filled in below
  SmallVector<NamedAttribute, 4> Attrs;
  SmallVector<Region *, 2> Regions;
  SmallVector<Value *, 8> PendingArgs;
  SmallVector<std::pair<char, const char *>, 4> Open;
  const char *ArrowPos = nullptr, *ColonPos = nullptr, *ToPos = nullptr;
  bool BoolLiteral = false;
  bool Isolated = isIsolatedOp(Op->Name);
  const char *End = P;
  while (true) {
    skipHSpace();
    if (atEnd()) {
      if (!Open.empty())
        return fail(Open.back().second,
                    Twine("unbalanced '") + Twine(Open.back().first) + "'");
      End = P;
      break;
    }
    char C = *P;
    if (C == '\n') {
      if (!Open.empty())
        return fail(Open.back().second, Twine("unbalanced '") +
                                            Twine(Open.back().first) +
                                            "': not closed on its line");
      End = P;
      ++P;
      if (nextLineContinuesOp())
        continue;
      break;
    }
    if (C == '/' && peek(1) == '/') {
      skipLineComment();
      continue;
    }
    if (C == '%') {
      const char *VS = P;
      ++P;
      const char *NB = P;
      while (P < E && isValueIdChar(*P))
        ++P;
      StringRef Name(NB, P - NB);
      if (Name.empty())
        return fail(VS, "expected a value name after '%'");
      int Sub = -1;
      if (peek() == '#' && llvm::isDigit(peek(1))) {
        ++P;
        if (!lexDecimal(Sub, MaxResults, "a result number"))
          return false;
      }
      if (peek() == ':' && peek(1) != ':') {
        // %arg: type loc(...) -- an argument of the next region.
        Value *V = parseBlockArgDef(VS, Name);
        if (!V)
          return false;
        PendingArgs.push_back(V);
        continue;
      }
      const char *Save = P;
      skipHSpace();
      if (peek() == '=' && peek(1) != '=') {
        // %iv = %lb ..., iter_args(%a = %init): an argument of the region.
        ++P;
        Value *V = I.make<Value>();
        V->Name = Name;
        I.AllValues.push_back(V);
        PendingArgs.push_back(V);
        continue;
      }
      P = Save;
      Uses.push_back({nullptr, Name, Sub, VS});
      continue;
    }
    if (C == '{') {
      const char *Q = P + 1;
      while (Q < E && (*Q == ' ' || *Q == '\t' || *Q == '\r'))
        ++Q;
      if (Q >= E || *Q == '\n' || (*Q == '/' && Q + 1 < E && Q[1] == '/')) {
        // A region.
        const char *OpenPos = P;
        P = Q;
        // Regions of isolated ops (functions, the module, the partitions of
        // ttg.warp_specialize) start a new name scope holding their
        // arguments.
        bool RegionIsolated =
            Isolated || (Op->Name == "ttg.warp_specialize" && !Regions.empty());
        Region *R = nullptr;
        SmallVector<Value *, 8> Args;
        Args.swap(PendingArgs);
        openScope(RegionIsolated);
        for (Value *V : Args)
          if (!defineValues(ArrayRef<Value *>(V).copy(I.Arena), V->Name,
                            OpenPos))
            return false;
        if (!parseRegion(Op, Regions.size(), Args, OpenPos, R))
          return false;
        if (!closeScope())
          return false;
        Regions.push_back(R);
        continue;
      }
      const Attribute *D = parseDictionary();
      if (!D)
        return false;
      Attrs.append(D->Entries.begin(), D->Entries.end());
      continue;
    }
    if (C == '}')
      return fail(P, "unexpected '}'");
    if (C == '(' || C == '[') {
      Open.push_back({C, P});
      ++P;
      continue;
    }
    if (C == ')' || C == ']') {
      char Want = C == ')' ? '(' : '[';
      if (Open.empty() || Open.back().first != Want)
        return fail(P, Twine("unbalanced '") + Twine(C) + "'");
      Open.pop_back();
      ++P;
      continue;
    }
    if (C == '<') {
      const char *Q = P + 1;
      while (Q < E && (*Q == ' ' || *Q == '\t'))
        ++Q;
      if (Q < E && *Q == '{') {
        // Properties of a generic op: <{...}>.
        P = Q;
        const Attribute *D = parseDictionary();
        if (!D || !expect('>', "to close the properties"))
          return false;
        Attrs.append(D->Entries.begin(), D->Entries.end());
        continue;
      }
      if (!skipAngle())
        return false;
      continue;
    }
    if (C == '-' && peek(1) == '>') {
      if (Open.empty())
        ArrowPos = P + 2;
      P += 2;
      continue;
    }
    if (C == ':') {
      if (peek(1) == ':') {
        P += 2;
        continue;
      }
      if (Open.empty()) {
        ColonPos = P + 1;
        ArrowPos = nullptr; // only an arrow after the last ':' counts...
      }
      ++P;
      continue;
    }
    if (C == '"') {
      lexString();
      if (failed())
        return false;
      continue;
    }
    if (C == '#') {
      if (!parseAttribute())
        return false;
      continue;
    }
    if (C == '!') {
      if (!parseType())
        return false;
      continue;
    }
    if (C == '@') {
      ++P;
      const char *SB = P;
      if (peek() == '"')
        lexString();
      else
        while (P < E && isValueIdChar(*P))
          ++P;
      if (Op->Symbol.empty())
        Op->Symbol = StringRef(SB, P - SB).trim('"');
      continue;
    }
    if (C == '^') {
      ++P;
      while (P < E && isValueIdChar(*P))
        ++P;
      continue;
    }
    if (isIdStart(C)) {
      StringRef Id = lexBareId();
      if (Id == "loc" && peek() == '(') {
        P -= 3;
        const Location *L = parseLoc();
        if (!L)
          return false;
        if (Open.empty())
          Op->Loc = L;
        continue;
      }
      if (peek() == '<') {
        if (!skipAngle())
          return false;
        continue;
      }
      if (Id == "to" && Open.empty())
        ToPos = P;
      if ((Id == "true" || Id == "false") && Op->Name == "arith.constant")
        BoolLiteral = true;
      continue;
    }
    ++P; // numbers, commas, '=', '*', ...
  }
  // Trim trailing spaces from the op text.
  Op->Text = StringRef(S, End - S).rtrim();
  if (!PendingArgs.empty())
    return fail(PendingArgs.front()->Name.data() - 1,
                "block argument %" + PendingArgs.front()->Name +
                    " is not followed by a region");

  // An arrow before the last ':' (scf.for: `-> (T) : i32 {`) gives results.
  // Re-scan for it cheaply: ColonPos reset ArrowPos; recover it when no
  // arrow follows the colon.
  if (!ArrowPos && ColonPos && !Results.empty() && Op->Name == "scf.for") {
    // find `->` at depth 0 before ColonPos on the header line
    StringRef Head(S, ColonPos - S);
    size_t A = Head.rfind("->");
    if (A != StringRef::npos)
      ArrowPos = S + A + 2;
  }

  // Operands: slots in the arena, filled when the scope closes.
  Value **Slots = I.Arena.Allocate<Value *>(Uses.size());
  for (auto [K, U] : llvm::enumerate(Uses)) {
    Slots[K] = nullptr;
    U.Slot = &Slots[K];
    if (const ArrayRef<Value *> *Group = lookup(U.Name)) {
      if (!bind(U, *Group))
        return false;
    } else {
      Scopes.back().Deferred.push_back(U);
    }
  }
  Op->Operands = ArrayRef<Value *>(Slots, Uses.size());
  Op->Attrs = I.copy<NamedAttribute>(Attrs);
  Op->Regions = I.copy<Region *>(Regions);
  assignResultTypes(Op, ArrowPos, ColonPos, ToPos, BoolLiteral);
  assignRegionArgTypes(Op, ColonPos);
  if (Op->Name == "tt.func" || Op->Name == "func.func")
    M.Functions.push_back(Op);
  Ops.push_back(Op);
  return !failed();
}

void Parser::computeUses() {
  DenseMap<const Value *, unsigned> Count;
  for (Operation *Op : M.AllOps)
    for (Value *V : Op->Operands)
      if (V)
        ++Count[V];
  DenseMap<const Value *, std::pair<Use *, unsigned>> Fill;
  for (auto &[V, N] : Count)
    Fill[V] = {I.Arena.Allocate<Use>(N), 0};
  for (Operation *Op : M.AllOps)
    for (auto [K, V] : llvm::enumerate(Op->Operands)) {
      if (!V)
        continue;
      auto &[Arr, N] = Fill[V];
      Arr[N++] = Use{Op, unsigned(K)};
    }
  for (auto &[V, F] : Fill)
    const_cast<Value *>(V)->Uses = ArrayRef<Use>(F.first, F.second);
}

Error Parser::run() {
  // Line table for line/column of any pointer (memchr: a word at a time).
  I.LineStarts.push_back(0);
  for (const char *B = Buf.data(), *S = B, *End = B + Buf.size();
       (S = static_cast<const char *>(std::memchr(S, '\n', End - S)));)
    I.LineStarts.push_back(++S - B);

  Block *Top = I.make<Block>();
  SmallVector<Operation *, 2> TopOps;
  openScope(/*Isolated=*/true); // file scope
  while (!failed()) {
    skipWS();
    if (atEnd())
      break;
    const char *S = P;
    if (*P == '#' || (*P == '!' && isIdStart(peek(1)))) {
      bool IsAttr = *P == '#';
      ++P;
      lexBareId();
      StringRef Name(S, P - S);
      if (!expect('=', "in alias definition"))
        break;
      skipHSpace();
      if (IsAttr && startsWith("loc(")) {
        const Location *L = parseLoc();
        if (!L)
          break;
        if (!I.LocAliases.try_emplace(Name, L).second)
          fail(S, "redefinition of location alias " + Name);
      } else if (IsAttr) {
        const Attribute *A = parseAttribute();
        if (!A)
          break;
        if (A->AliasName.empty())
          const_cast<Attribute *>(A)->AliasName = Name;
        if (!I.Aliases.try_emplace(Name, A).second)
          fail(S, "redefinition of attribute alias " + Name);
        M.AliasOrder.push_back(Name);
      } else {
        const Type *T = parseType();
        if (!T)
          break;
        I.TypeAliases[Name] = T;
      }
      skipHSpace();
      if (!atEnd() && *P != '\n' && !(*P == '/' && peek(1) == '/'))
        fail(P, "unexpected text after the alias definition");
      continue;
    }
    if (*P == '}') {
      fail(P, "unexpected '}': no region is open here");
      break;
    }
    if (startsWith("{-#")) {
      // File-level resources ({-# dialect_resources: ... #-}): skipped.
      const char *Close = std::search(P, E, "#-}", "#-}" + 3);
      if (Close == E) {
        fail(P, "unterminated '{-#'");
        break;
      }
      P = Close + 3;
      continue;
    }
    if (!parseOperation(Top, TopOps))
      break;
  }
  if (!failed())
    closeScope();
  if (!failed())
    resolveLocations();
  if (!failed()) {
    for (Operation *Op : TopOps)
      if (Op->Name == "builtin.module") {
        M.ModuleOp = Op;
        break;
      }
    if (!M.ModuleOp)
      fail(Buf.begin(), "no 'module' operation in the file");
  }
  if (failed()) {
    auto [L, C] = M.lineColOf(FailPos);
    return inputError(Path, L, C, FailMsg);
  }
  Top->Ops = I.copy<Operation *>(TopOps);
  computeUses();
  return Error::success();
}

} // namespace

Expected<std::unique_ptr<TtgirModule>> parseTtgirText(StringRef Text,
                                                      StringRef Path) {
  auto M = std::make_unique<TtgirModule>();
  M->Path = Path.str();
  M->I->OwnedText = Text.str();
  M->I->Text = M->I->OwnedText;
  Parser Ps(*M, Path);
  if (Error E = Ps.run())
    return E;
  if (Error E = verifyLayouts(*M))
    return E;
  return M;
}

Expected<std::unique_ptr<TtgirModule>> parseTtgir(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(Path, Content::Text);
  if (!Buf)
    return Buf.takeError();
  auto M = std::make_unique<TtgirModule>();
  M->Path = Path.str();
  M->I->Buffer = std::move(*Buf);
  M->I->Text = M->I->Buffer->getBuffer();
  Parser Ps(*M, Path);
  if (Error E = Ps.run())
    return E;
  if (Error E = verifyLayouts(*M))
    return E;
  return M;
}

} // namespace gestell
