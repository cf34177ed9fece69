//===- TtgirTypes.cpp - Types of TTGIR: tensors, memdescs, pointers -------===//
//
// Builtin and Triton types read into their parts (shape, element,
// encoding, memory space, address space); other types are kept as text.
// Type texts are interned: a type already read is looked up by its text
// without being parsed again.
//
//===----------------------------------------------------------------------===//
#include "readers/ttgir/TtgirParser.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace gestell::ttgir {

const Type *Parser::parseType() {
  Nest N(*this);
  if (!N.Ok)
    return nullptr;
  skipHSpace();
  const char *S = P;
  const char *End = nullptr;
  for (const TypeAt &K : Known)
    if (K.Pos == S) {
      if (!K.Ty) {
        End = K.End;
        break;
      }
      P = K.End;
      return K.Ty;
    }
  if (!End)
    End = scanTypeEnd(S);
  StringRef Text(S, End - S);
  uint32_t Hash = 0;
  if (!Text.empty()) {
    Hash = TypeCache.hash(Text);
    if (const Type **Cached = TypeCache.find(Text, Hash)) {
      P = End;
      return *Cached;
    }
  }
  const Type *T = parseTypeUncached(S);
  if (T && !Text.empty() && T->Text == Text) {
    bool New;
    TypeCache.insert(Text, Hash, New) = T;
  }
  return T;
}

const Type *Parser::parseTypeUncached(const char *S) {
  char C = peek();
  if (C == '!')
    return parseDialectType(S);
  if (isIdStart(C))
    return parseKeywordType(S);
  if (C == '<')
    return parseBareMemDesc(S);
  if (C == '(')
    return parseFunctionType(S);
  fail(S, "expected a type");
  return nullptr;
}

/// `!tt.ptr<...>`, `!ttg.memdesc<...>`, `!tt.tensordesc<...>`, an alias, or
/// another dialect type (text only).
const Type *Parser::parseDialectType(const char *S) {
  ++P;
  StringRef Id = lexBareId();
  if (peek() != '<') {
    StringRef Name(S, P - S);
    auto It = I.TypeAliases.find(Name);
    if (It != I.TypeAliases.end())
      return It->second;
  }
  Type *T = I.make<Type>();
  T->Name = Id;
  bool Ok = true;
  if (peek() != '<') {
    T->K = Type::Kind::Other;
  } else if (Id == "tt.ptr") {
    Ok = parsePointerBody(T);
  } else if (Id == "ttg.memdesc") {
    Ok = parseMemDescBody(T);
  } else if (Id == "tt.tensordesc") {
    ++P;
    T->K = Type::Kind::TensorDesc;
    T->Element = parseType();
    Ok = T->Element && expect('>', "to close !tt.tensordesc<>");
  } else {
    T->K = Type::Kind::Other;
    Ok = skipAngle();
  }
  if (!Ok)
    return nullptr;
  T->Text = StringRef(S, P - S);
  return T;
}

/// `<pointee, address space>` of !tt.ptr.
bool Parser::parsePointerBody(Type *T) {
  ++P;
  T->K = Type::Kind::Pointer;
  T->Element = parseType();
  if (!T->Element)
    return false;
  skipHSpace();
  if (peek() == ',') {
    ++P;
    skipHSpace();
    unsigned AS = 0;
    if (llvm::isDigit(peek()) && !lexDecimal(AS, 255, "an address space"))
      return false;
    T->AddressSpace = AS;
  }
  return expect('>', "to close !tt.ptr<>");
}

/// `tensor<...>`, a scalar (i32, f16, index), or another builtin type kept
/// as text.
const Type *Parser::parseKeywordType(const char *S) {
  Type *T = I.make<Type>();
  StringRef Id = lexBareId();
  T->Name = Id;
  if (Id == "tensor" && peek() == '<') {
    if (!parseTensorBody(T))
      return nullptr;
  } else if (peek() == '<') {
    T->K = Type::Kind::Other;
    if (!skipAngle())
      return nullptr;
  } else {
    T->K = Type::Kind::Scalar;
  }
  T->Text = StringRef(S, P - S);
  return T;
}

/// `<shape x element, encoding>` of tensor.
bool Parser::parseTensorBody(Type *T) {
  ++P;
  T->K = Type::Kind::Tensor;
  SmallVector<int64_t, 4> Shape;
  if (!parseShapeAndElement(Shape, T->Element))
    return false;
  if (!Shape.empty())
    T->Shape = I.copy<int64_t>(Shape);
  skipHSpace();
  if (peek() == ',') {
    ++P;
    skipHSpace();
    T->Encoding = parseAttribute();
    if (!T->Encoding)
      return false;
  }
  return expect('>', "to close tensor<>");
}

/// A memory descriptor printed without its `!ttg.memdesc` prefix, as some
/// custom op formats do: `-> <128x64xbf16, #shared, #smem>`.
const Type *Parser::parseBareMemDesc(const char *S) {
  Type *T = I.make<Type>();
  T->Name = "ttg.memdesc";
  if (!parseMemDescBody(T))
    return nullptr;
  T->Text = StringRef(S, P - S);
  return T;
}

/// A function type used as a type: (a, b) -> c. Kept as text.
const Type *Parser::parseFunctionType(const char *S) {
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
  Type *T = I.make<Type>();
  T->K = Type::Kind::Other;
  T->Text = StringRef(S, P - S);
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
  // At '<': shape x element, then encoding, memory space, `mutable`, an
  // allocation shape, in any order of the last two.
  T->K = Type::Kind::MemDesc;
  SmallVector<int64_t, 4> Shape;
  int AttrNo = 0;
  auto ParseElement = [&] {
    if (!T->Element)
      return parseShapeAndElement(Shape, T->Element);
    return parseMemDescParam(T, AttrNo);
  };
  if (!parseCommaSeparatedList(Delimiter::LessGreater, ParseElement,
                               "in the memory descriptor type"))
    return false;
  if (!T->Element) // `<>`
    return fail(P - 1, "expected a type");
  T->Shape = I.copy<int64_t>(Shape);
  return true;
}

/// What follows the element type of a memory descriptor: its encoding then
/// memory space (AttrNo counts them), `mutable`, an allocation shape, or
/// another attribute.
bool Parser::parseMemDescParam(Type *T, int &AttrNo) {
  if (peek() == '#') {
    const Attribute *A = parseAttribute();
    if (!A)
      return false;
    (AttrNo++ == 0 ? T->Encoding : T->MemorySpace) = A;
    return true;
  }
  if (startsWith("mutable")) {
    P += 7;
    T->Mutable = true;
    return true;
  }
  if (llvm::isDigit(peek()))
    return parseAllocShape(T);
  return parseAttribute() != nullptr;
}

/// `2x128x64`: the allocation shape of a memory descriptor view.
bool Parser::parseAllocShape(Type *T) {
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
  return true;
}

bool Parser::parseTypeList(SmallVectorImpl<const Type *> &Out,
                           bool AllowParens) {
  auto ParseType = [&] { return append(Out, parseType()); };
  skipHSpace();
  if (AllowParens && peek() == '(')
    return parseCommaSeparatedList(Delimiter::Paren, ParseType,
                                   "in the type list");
  // Without parentheses the list ends at a comma that no type follows
  // (`: i32, i32 loc(...)` is read whole): what follows the last ':' of an
  // op is not known to be only types. (The caller restores P.)
  size_t Start = Out.size();
  bool Ended = false;
  return parseCommaSeparatedList(Delimiter::None, [&] {
    char C = peek();
    bool First = Out.size() == Start;
    Ended = Ended || (!First && C != '!' && C != '(' && !isIdStart(C));
    return Ended || ParseType();
  });
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

const Type *Parser::scalarType(StringRef Name) {
  uint32_t Hash = TypeCache.hash(Name);
  if (const Type **Cached = TypeCache.find(Name, Hash))
    return *Cached;
  Type *T = I.make<Type>();
  T->K = Type::Kind::Scalar;
  T->Name = T->Text = Name; // Name must outlive: literals or file text
  bool New;
  TypeCache.insert(Name, Hash, New) = T;
  return T;
}

} // namespace gestell::ttgir
