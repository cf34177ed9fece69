//===- TtgirOps.cpp - Operations, regions and value scopes of TTGIR -------===//
//
// An op is read as the shape every printed op shares, custom or generic:
// `results = name operands {attrs} regions : types loc()`. The scan of its
// header knows no op's syntax: it collects value uses, attribute
// dictionaries, regions and the positions of `:`, `->` and `to`, from
// which the result types are read afterwards. Operands are bound when
// their name scope closes, so forward references resolve.
//
//===----------------------------------------------------------------------===//
#include "readers/ttgir/TtgirParser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <utility>

using namespace llvm;

namespace gestell::ttgir {

/// What the scan of an op's header collects until the op ends.
struct [[gnu::visibility("hidden")]] OpHeader {
  SmallVector<Parser::PendingUse, 8> Uses; ///< Slot filled in at the end
  SmallVector<NamedAttribute, 4> Attrs;
  SmallVector<Region *, 2> Regions;
  SmallVector<Value *, 8> PendingArgs;                ///< of the next region
  SmallVector<std::pair<char, const char *>, 4> Open; ///< ( and [ unclosed
  /// The types the scan read (a `!dialect` type) or skipped (a `word<...>`
  /// after the op's ':'), by where each starts: reading the result types
  /// afterwards takes them, or their ends, from here instead of scanning
  /// the text again.
  SmallVector<Parser::TypeAt, 4> Types;
  const char *ArrowPos = nullptr, *ColonPos = nullptr, *ToPos = nullptr;
  const char *End = nullptr; ///< where the op's text ends
  bool BoolLiteral = false;  ///< arith.constant true / false
  bool Isolated = false;     ///< its regions start a new name scope
};

/// Ops whose regions start a new value-name scope (isolated from above).
static bool isIsolatedOp(StringRef Name) {
  return Name == "tt.func" || Name == "func.func" || Name == "builtin.module" ||
         Name == "module";
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

bool Parser::parseOperation(Block *B, SmallVectorImpl<Operation *> &Ops) {
  const char *S = P;
  Operation *Op = newOperation(B, S);
  SmallVector<ResultGroup, 2> Groups;
  if (peek() == '%') {
    // Most ops have one result, printed `%name = `: read here; anything
    // else (`%a, %b =`, `%x:2 =`, other spacing) by the list's grammar.
    ++P;
    StringRef Name = lexValueId();
    if (!Name.empty() && startsWith(" = ")) {
      Groups.push_back({Name, 1, S});
      P += 3;
      skipHSpace();
    } else {
      P = S;
      if (!parseResultGroups(Groups))
        return false;
    }
  }
  // Results are defined before the op's regions are read (uses in nested
  // regions resolve at scope end anyway).
  if (!parseOpName(Op) || !defineResults(Op, Groups))
    return false;
  OpHeader H;
  H.Isolated = isIsolatedOp(Op->Name);
  if (!scanOpHeader(Op, H))
    return false;
  // Trim trailing spaces from the op text (StringRef::rtrim's set, without
  // the table it builds on every call).
  const char *TextEnd = H.End;
  while (TextEnd > S && llvm::isSpace(TextEnd[-1]))
    --TextEnd;
  Op->Text = StringRef(S, TextEnd - S);
  return finishOperation(Op, H, Ops);
}

Operation *Parser::newOperation(Block *B, const char *S) {
  Operation *Op = I.make<Operation>();
  Op->ParentBlock = B;
  const std::vector<uint32_t> &LS = I.LineStarts;
  size_t Off = S - Buf.begin();
  if (OpLine < LS.size() && LS[OpLine] <= Off) {
    while (OpLine + 1 < LS.size() && LS[OpLine + 1] <= Off)
      ++OpLine;
    Op->Line = OpLine + 1;
    Op->Column = Off - LS[OpLine] + 1;
  } else {
    std::tie(Op->Line, Op->Column) = M.lineColOf(S);
  }
  M.AllOps.push_back(Op);
  return Op;
}

/// `%a, %b:2 =`.
bool Parser::parseResultGroups(SmallVectorImpl<ResultGroup> &Groups) {
  auto ParseGroup = [&] {
    if (peek() != '%')
      return fail(P, "expected a result name");
    const char *GP = P;
    ++P;
    StringRef Name = lexValueId();
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
    return true;
  };
  if (!parseCommaSeparatedList(Delimiter::None, ParseGroup) ||
      !expect('=', "after the results"))
    return false;
  skipHSpace();
  return true;
}

bool Parser::parseOpName(Operation *Op) {
  if (peek() == '"') {
    Op->Name = lexString();
    Op->Generic = true;
    return !failed();
  }
  Op->Name = lexBareId();
  if (Op->Name.empty())
    return fail(P, "expected an operation name");
  if (Op->Name == "module")
    Op->Name = "builtin.module";
  return true;
}

bool Parser::defineResults(Operation *Op, ArrayRef<ResultGroup> Groups) {
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
  return true;
}

/// The rest of the op after its name: operands, attributes, regions,
/// types, location, up to the end of its last line. One token a turn (the
/// switch is here, not in a function of its own: it runs per token).
bool Parser::scanOpHeader(Operation *Op, OpHeader &H) {
  H.End = P;
  bool Ok = true;
  while (Ok) {
    skipHSpace();
    if (atEnd()) {
      if (!H.Open.empty())
        return fail(H.Open.back().second,
                    Twine("unbalanced '") + Twine(H.Open.back().first) + "'");
      H.End = P;
      return true;
    }
    char C = *P;
    if (C == '\n') {
      if (!H.Open.empty())
        return fail(H.Open.back().second, Twine("unbalanced '") +
                                              Twine(H.Open.back().first) +
                                              "': not closed on its line");
      H.End = P;
      ++P;
      if (nextLineContinuesOp())
        continue;
      return true;
    }
    switch (C) {
    case '%':
      Ok = scanValueRef(H);
      break;
    case '{':
      Ok = scanBrace(Op, H);
      break;
    case '}':
      return fail(P, "unexpected '}'");
    case '<':
      Ok = scanAngle(H);
      break;
    case '(':
    case '[':
      H.Open.push_back({C, P++});
      break;
    case ')':
    case ']':
      if (H.Open.empty() || H.Open.back().first != (C == ')' ? '(' : '['))
        return fail(P, Twine("unbalanced '") + Twine(C) + "'");
      H.Open.pop_back();
      ++P;
      break;
    case ':':
      scanColon(H);
      break;
    case '"':
      lexString();
      Ok = !failed();
      break;
    case '#':
      Ok = parseAttribute() != nullptr;
      break;
    case '!':
      Ok = scanType(H);
      break;
    case '@':
      scanSymbol(Op);
      break;
    case '^': // a successor
      ++P;
      lexValueId();
      break;
    default:
      Ok = scanOther(Op, H);
      break;
    }
  }
  return false;
}

/// A type at P, read whole and kept in H.Types by where it starts.
bool Parser::scanType(OpHeader &H) {
  const char *S = P;
  const Type *T = parseType();
  if (!T)
    return false;
  H.Types.push_back({S, P, T});
  return true;
}

/// `::` (skipped) or the ':' before the op's types.
void Parser::scanColon(OpHeader &H) {
  if (peek(1) == ':') {
    P += 2;
    return;
  }
  if (H.Open.empty()) {
    H.ColonPos = P + 1;
    H.ArrowPos = nullptr; // only an arrow after the last ':' counts...
  }
  ++P;
}

/// `@name` or `@"name"`: the op's symbol, the first one given.
void Parser::scanSymbol(Operation *Op) {
  ++P;
  const char *SB = P;
  if (peek() == '"')
    lexString();
  else
    lexValueId();
  if (Op->Symbol.empty())
    Op->Symbol = StringRef(SB, P - SB).trim('"');
}

/// A comment, `->`, a keyword, or another character skipped (numbers,
/// commas, '=', '*', ...).
bool Parser::scanOther(Operation *Op, OpHeader &H) {
  char C = *P;
  if (C == '/' && peek(1) == '/') {
    skipLineComment();
    return true;
  }
  if (C == '-' && peek(1) == '>') {
    if (H.Open.empty())
      H.ArrowPos = P + 2;
    P += 2;
    return true;
  }
  if (isIdStart(C))
    return scanWord(Op, H);
  ++P;
  return true;
}

/// `%name`, `%name#N` (a use), `%arg: type loc(...)` or `%iv = ...` (an
/// argument of the next region).
bool Parser::scanValueRef(OpHeader &H) {
  const char *VS = P;
  ++P;
  StringRef Name = lexValueId();
  if (Name.empty())
    return fail(VS, "expected a value name after '%'");
  int Sub = -1;
  if (peek() == '#' && llvm::isDigit(peek(1))) {
    ++P;
    if (!lexDecimal(Sub, MaxResults, "a result number"))
      return false;
  }
  if (peek() == ':' && peek(1) != ':') {
    Value *V = parseBlockArgDef(Name);
    if (!V)
      return false;
    H.PendingArgs.push_back(V);
    return true;
  }
  const char *Save = P;
  skipHSpace();
  if (peek() == '=' && peek(1) != '=') {
    // %iv = %lb ..., iter_args(%a = %init).
    ++P;
    Value *V = I.make<Value>();
    V->Name = Name;
    I.AllValues.push_back(V);
    H.PendingArgs.push_back(V);
    return true;
  }
  P = Save;
  H.Uses.push_back({nullptr, Name, Sub, VS});
  return true;
}

/// A region (a '{' that ends its line) or an attribute dictionary.
bool Parser::scanBrace(Operation *Op, OpHeader &H) {
  const char *Q = P + 1;
  while (Q < E && (*Q == ' ' || *Q == '\t' || *Q == '\r'))
    ++Q;
  if (Q >= E || *Q == '\n' || (*Q == '/' && Q + 1 < E && Q[1] == '/')) {
    const char *OpenPos = P;
    P = Q;
    return parseOpRegion(Op, H, OpenPos);
  }
  const Attribute *D = parseDictionary();
  if (!D)
    return false;
  H.Attrs.append(D->Entries.begin(), D->Entries.end());
  return true;
}

/// Properties of a generic op (`<{...}>`), or another <...> skipped.
bool Parser::scanAngle(OpHeader &H) {
  const char *Q = P + 1;
  while (Q < E && (*Q == ' ' || *Q == '\t'))
    ++Q;
  if (Q >= E || *Q != '{')
    return skipAngle();
  P = Q;
  const Attribute *D = parseDictionary();
  if (!D || !expect('>', "to close the properties"))
    return false;
  H.Attrs.append(D->Entries.begin(), D->Entries.end());
  return true;
}

/// A keyword: `loc(...)` (the op's location at depth 0), `to` (a result
/// type follows), `true`/`false` of arith.constant, or a word skipped.
bool Parser::scanWord(Operation *Op, OpHeader &H) {
  StringRef Id = lexBareId();
  if (Id == "loc" && peek() == '(') {
    P -= 3;
    const Location *L = parseLoc();
    if (!L)
      return false;
    if (H.Open.empty())
      Op->Loc = L;
    return true;
  }
  if (peek() == '<') {
    // After the op's ':' a `word<...>` is a type (tensor<...>): where it
    // ends is kept, so that reading the result types does not scan it
    // again.
    const char *W = Id.data();
    if (!skipAngle())
      return false;
    if (H.ColonPos)
      H.Types.push_back({W, P, nullptr});
    return true;
  }
  if (Id == "to" && H.Open.empty())
    H.ToPos = P;
  if ((Id == "true" || Id == "false") && Op->Name == "arith.constant")
    H.BoolLiteral = true;
  return true;
}

/// The region at P (its '{' at OpenPos), with the arguments the header
/// gave it.
bool Parser::parseOpRegion(Operation *Op, OpHeader &H, const char *OpenPos) {
  // Regions of isolated ops (functions, the module, the partitions of
  // ttg.warp_specialize) start a new name scope holding their arguments.
  bool RegionIsolated =
      H.Isolated || (Op->Name == "ttg.warp_specialize" && !H.Regions.empty());
  SmallVector<Value *, 8> Args;
  Args.swap(H.PendingArgs);
  openScope(RegionIsolated);
  for (Value *V : Args)
    if (!defineValue(V, OpenPos))
      return false;
  Region *R = nullptr;
  if (!parseRegion(Op, H.Regions.size(), Args, OpenPos, R) || !closeScope())
    return false;
  H.Regions.push_back(R);
  return true;
}

bool Parser::finishOperation(Operation *Op, OpHeader &H,
                             SmallVectorImpl<Operation *> &Ops) {
  if (!H.PendingArgs.empty())
    return fail(H.PendingArgs.front()->Name.data() - 1,
                "block argument %" + H.PendingArgs.front()->Name +
                    " is not followed by a region");
  // An arrow before the last ':' (scf.for: `-> (T) : i32 {`) gives results.
  // Re-scan for it cheaply: ColonPos reset ArrowPos; recover it when no
  // arrow follows the colon.
  if (!H.ArrowPos && H.ColonPos && !Op->Results.empty() &&
      Op->Name == "scf.for") {
    // find `->` at depth 0 before ColonPos on the header line
    const char *S = Op->Text.data();
    StringRef Head(S, H.ColonPos - S);
    size_t A = Head.rfind("->");
    if (A != StringRef::npos)
      H.ArrowPos = S + A + 2;
  }
  if (!bindOperands(Op, H.Uses))
    return false;
  Op->Attrs = I.copy<NamedAttribute>(H.Attrs);
  Op->Regions = I.copy<Region *>(H.Regions);
  // Both read types the header scan has seen (parseType takes them).
  Known = H.Types;
  assignResultTypes(Op, H);
  assignRegionArgTypes(Op, H.ColonPos);
  Known = {};
  if (Op->Name == "tt.func" || Op->Name == "func.func")
    M.Functions.push_back(Op);
  Ops.push_back(Op);
  return !failed();
}

/// Operands: slots in the arena, filled now when the name is in scope,
/// else when the scope closes.
bool Parser::bindOperands(Operation *Op, MutableArrayRef<PendingUse> Uses) {
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
  return true;
}

//===----------------------------------------------------------------------===//
// Result and region-argument types
//===----------------------------------------------------------------------===//

void Parser::assignResultTypes(Operation *Op, const OpHeader &H) {
  if (Op->Results.empty())
    return;
  const char *Save = P;
  SmallVector<const Type *, 4> Tys;
  bool Ok = true;
  if (H.ArrowPos) {
    P = H.ArrowPos;
    Ok = parseTypeList(Tys, /*AllowParens=*/true);
  } else if (H.ToPos && H.ToPos > H.ColonPos) {
    P = H.ToPos;
    if (const Type *T = parseType())
      Tys.push_back(T);
  } else if (H.ColonPos) {
    P = H.ColonPos;
    Ok = parseTypeList(Tys, /*AllowParens=*/false);
  }
  // Result types are derived, not required: text that is not a type leaves
  // them unknown (unknown op syntax is allowed); an undefined alias inside
  // a type is still an error.
  if ((!Ok || failed()) && !BoundsFailure && !failedOnUndefined()) {
    clearFailure();
    Tys.clear();
  }
  P = Save;
  if (Tys.empty()) {
    if (!H.BoolLiteral)
      return;
    Tys.push_back(scalarType("i1"));
  }
  refineResultTypes(Op->Name, Tys);
  for (auto [K, V] : llvm::enumerate(Op->Results))
    V->Ty = Tys.size() == Op->Results.size() ? Tys[K] : Tys.front();
}

/// The result types of the ops whose printed types are their operands'.
void Parser::refineResultTypes(StringRef N,
                               SmallVectorImpl<const Type *> &Tys) {
  const Type *First = Tys.front();
  if (N == "tt.load") {
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
  if (failed() && !failedOnUndefined())
    clearFailure();
  P = Save;
}

//===----------------------------------------------------------------------===//
// Regions and blocks
//===----------------------------------------------------------------------===//

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
        if (!defineValue(V, LabelPos))
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

/// `^label(%a: type, ...):`.
bool Parser::parseBlockLabel(StringRef &Label, SmallVectorImpl<Value *> &Args) {
  ++P; // ^
  Label = lexValueId();
  auto ParseArg = [&] {
    if (peek() != '%')
      return fail(P, "expected a block argument");
    ++P;
    StringRef Name = lexValueId();
    if (peek() != ':')
      return fail(P, "expected ':' after block argument %" + Name);
    Value *V = parseBlockArgDef(Name);
    if (!V)
      return false;
    V->Index = Args.size();
    Args.push_back(V);
    return true;
  };
  if (peek() == '(' && !parseCommaSeparatedList(Delimiter::Paren, ParseArg,
                                                "in the block arguments"))
    return false;
  return expect(':', "after the block label");
}

Value *Parser::parseBlockArgDef(StringRef Name) {
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

//===----------------------------------------------------------------------===//
// Values and scopes
//===----------------------------------------------------------------------===//

bool Parser::defineValues(ArrayRef<Value *> Vals, StringRef Name,
                          const char *Pos) {
  if (Scopes.empty())
    return fail(Pos, "value %" + Name + " defined outside a function");
  uint32_t Hash = Names.hash(Name);
  uint32_t Cur = Scopes.size() - 1;
  bool New;
  uint32_t &Top = Names.insert(Name, Hash, New);
  if (Top && Bindings[Top - 1].Scope == Cur)
    return fail(Pos, "redefinition of value %" + Name);
  Bindings.push_back({Vals, Name, Hash, Top, Cur});
  Top = Bindings.size();
  return true;
}

bool Parser::defineValue(Value *V, const char *Pos) {
  return defineValues(ArrayRef<Value *>(V).copy(I.Arena), V->Name, Pos);
}

const ArrayRef<Value *> *Parser::lookup(StringRef Name) const {
  const uint32_t *Top = Names.find(Name);
  if (!Top || !*Top)
    return nullptr;
  const Binding &B = Bindings[*Top - 1];
  return B.Scope >= VisibleFrom ? &B.Vals : nullptr;
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
  uint32_t Cur = Scopes.size() - 1;
  std::vector<PendingUse> Outer;
  for (const PendingUse &U : S.Deferred) {
    const uint32_t *Top = Names.find(U.Name);
    if (Top && *Top && Bindings[*Top - 1].Scope == Cur) {
      if (!bind(U, Bindings[*Top - 1].Vals))
        return false;
      continue;
    }
    if (S.Isolated || Scopes.size() == 1)
      return fail(U.Pos, "use of undefined value %" + U.Name);
    Outer.push_back(U);
  }
  // The names this scope defined give back the bindings they hid.
  for (size_t K = Bindings.size(); K > S.FirstBinding; --K) {
    const Binding &B = Bindings[K - 1];
    *Names.find(B.Name, B.Hash) = B.Prev;
  }
  Bindings.resize(S.FirstBinding);
  VisibleFrom = S.PrevVisibleFrom;
  Scopes.pop_back();
  if (!Outer.empty())
    llvm::append_range(Scopes.back().Deferred, Outer);
  return true;
}

} // namespace gestell::ttgir
