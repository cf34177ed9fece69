//===- Ttgir.cpp - The parsed TTGIR graph: queries ------------------------===//
#include "readers/ttgir/TtgirImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace gestell {

//===----------------------------------------------------------------------===//
// Attribute
//===----------------------------------------------------------------------===//

const Attribute *Attribute::get(StringRef Key) const {
  for (const NamedAttribute &NA : Entries)
    if (NA.Name == Key)
      return NA.Value;
  return nullptr;
}

std::optional<int64_t> Attribute::getInt(StringRef Key) const {
  const Attribute *A = get(Key);
  if (!A || (A->K != Kind::Integer && A->K != Kind::Bool))
    return std::nullopt;
  return A->Int;
}

std::optional<SmallVector<int64_t, 4>>
Attribute::getIntArray(StringRef Key) const {
  const Attribute *A = get(Key);
  if (!A)
    return std::nullopt;
  SmallVector<int64_t, 4> Out;
  if (A->K == Kind::Integer) {
    Out.push_back(A->Int);
    return Out;
  }
  if (A->K != Kind::Array)
    return std::nullopt;
  for (const Attribute *E : A->Elements) {
    if (E->K != Kind::Integer)
      return std::nullopt;
    Out.push_back(E->Int);
  }
  return Out;
}

static void printAttr(raw_ostream &OS, const Attribute &A);

static void printEntries(raw_ostream &OS, ArrayRef<NamedAttribute> Entries) {
  ListSeparator LS;
  for (const NamedAttribute &NA : Entries) {
    OS << LS;
    bool Plain = !NA.Name.empty() && llvm::all_of(NA.Name, [](char C) {
      return std::isalnum((unsigned char)C) || C == '_' || C == '.' || C == '$';
    });
    if (Plain)
      OS << NA.Name;
    else
      OS << '"' << NA.Name << '"';
    if (NA.Value && NA.Value->K != Attribute::Kind::Unit) {
      OS << " = ";
      printAttr(OS, *NA.Value);
    }
  }
}

static void printAttr(raw_ostream &OS, const Attribute &A) {
  using K = Attribute::Kind;
  switch (A.K) {
  case K::Unit:
    OS << "unit";
    return;
  case K::Dictionary:
    OS << '{';
    printEntries(OS, A.Entries);
    OS << '}';
    return;
  case K::Array: {
    if (A.ValueType) {
      OS << "array<" << A.ValueType->Text;
      if (!A.Elements.empty())
        OS << ": ";
    } else {
      OS << '[';
    }
    ListSeparator LS;
    for (const Attribute *E : A.Elements) {
      OS << LS;
      printAttr(OS, *E);
    }
    OS << (A.ValueType ? '>' : ']');
    return;
  }
  case K::Dialect:
    OS << '#' << A.Spelling;
    if (!A.Entries.empty()) {
      // Triton prints most encodings as <{...}>; TMEM encodings as <k = v>.
      bool Braces = !A.Spelling.starts_with("ttng.");
      OS << (Braces ? "<{" : "<");
      printEntries(OS, A.Entries);
      OS << (Braces ? "}>" : ">");
    } else if (!A.OpaqueBody.empty()) {
      OS << '<' << A.OpaqueBody << '>';
    }
    return;
  case K::String:
    OS << '"' << A.Spelling << '"';
    break;
  case K::Bool:
  case K::Integer:
  case K::Float:
    OS << A.Spelling;
    break;
  case K::Type:
    OS << (A.ValueType ? A.ValueType->Text : A.Text);
    return;
  case K::Symbol:
    OS << '@' << A.Spelling;
    return;
  case K::Opaque:
    OS << A.Text;
    return;
  }
  if (A.ValueType)
    OS << " : " << A.ValueType->Text;
}

std::string Attribute::str() const {
  std::string S;
  raw_string_ostream OS(S);
  printAttr(OS, *this);
  return S;
}

//===----------------------------------------------------------------------===//
// Type
//===----------------------------------------------------------------------===//

StringRef Type::elementName() const {
  const Type *T = this;
  while (T && (T->K == Kind::Tensor || T->K == Kind::MemDesc ||
               T->K == Kind::TensorDesc))
    T = T->Element;
  if (!T)
    return "";
  if (T->K == Kind::Pointer)
    return "ptr";
  return T->K == Kind::Scalar ? T->Name : T->Text;
}

unsigned Type::elementBitWidth() const {
  StringRef N = elementName();
  if (N == "ptr")
    return 64;
  if (N == "index")
    return 64;
  if (N == "bf16" || N == "tf32")
    return N == "bf16" ? 16 : 32;
  StringRef Digits = N;
  if (Digits.consume_front("si") || Digits.consume_front("ui") ||
      Digits.consume_front("i") || Digits.consume_front("f")) {
    // f8E4M3FN -> 8, f16 -> 16, i1 -> 1
    unsigned W = 0;
    size_t K = 0;
    while (K < Digits.size() && std::isdigit((unsigned char)Digits[K]))
      W = W * 10 + (Digits[K++] - '0');
    return K ? W : 0;
  }
  return 0;
}

int64_t Type::numElements() const {
  int64_t N = 1;
  for (int64_t D : Shape)
    N *= D < 0 ? 1 : D;
  return N;
}

//===----------------------------------------------------------------------===//
// Value, Region, Operation
//===----------------------------------------------------------------------===//

std::string Value::ref() const {
  std::string S = "%" + Name.str();
  if (Def) {
    // Index is the result number; a group name covers consecutive results.
    unsigned First = Index;
    while (First > 0 && Def->Results[First - 1]->Name == Name)
      --First;
    unsigned Last = Index;
    while (Last + 1 < Def->Results.size() &&
           Def->Results[Last + 1]->Name == Name)
      ++Last;
    if (Last > First)
      S += "#" + std::to_string(Index - First);
  }
  return S;
}

size_t Region::numOps() const {
  size_t N = 0;
  for (const Block *B : Blocks)
    N += B->Ops.size();
  return N;
}

Operation *Operation::parentOp() const {
  if (!ParentBlock || !ParentBlock->Parent)
    return nullptr;
  return ParentBlock->Parent->Parent;
}

const Attribute *Operation::attr(StringRef Key) const {
  for (const NamedAttribute &NA : Attrs)
    if (NA.Name == Key)
      return NA.Value;
  return nullptr;
}

bool Operation::isLoop() const {
  return Name == "scf.for" || Name == "scf.while" || Name == "scf.parallel";
}

bool Operation::isElementwise() const {
  StringRef N = Name;
  if (N == "arith.constant")
    return false;
  if (N.starts_with("arith.") || N.starts_with("math."))
    return true;
  static const StringSet<> Triton = {
      "tt.fp_to_fp", "tt.bitcast", "tt.precise_sqrt",      "tt.precise_divf",
      "tt.clampf",   "tt.mulhiui", "tt.extern_elementwise"};
  return Triton.contains(N);
}

unsigned Operation::loopDepth() const {
  unsigned D = 0;
  for (Operation *Op = parentOp(); Op; Op = Op->parentOp())
    D += Op->isLoop();
  return D;
}

Operation *Operation::enclosingLoop() const {
  for (Operation *Op = parentOp(); Op; Op = Op->parentOp())
    if (Op->isLoop())
      return Op;
  return nullptr;
}

Operation *Operation::enclosingFunction() const {
  for (Operation *Op = parentOp(); Op; Op = Op->parentOp())
    if (Op->Name == "tt.func" || Op->Name == "func.func")
      return Op;
  return nullptr;
}

void Operation::walk(function_ref<void(Operation &)> Fn) const {
  for (const Region *R : Regions)
    for (const Block *B : R->Blocks)
      for (Operation *Op : B->Ops) {
        Fn(*Op);
        Op->walk(Fn);
      }
}

const Type *Operation::operandType(unsigned OperandNo) const {
  if (OperandNo >= Operands.size() || !Operands[OperandNo])
    return nullptr;
  return Operands[OperandNo]->Ty;
}

const Type *Operation::resultType(unsigned ResultNo) const {
  return ResultNo < Results.size() ? Results[ResultNo]->Ty : nullptr;
}

namespace {
/// N of `num_warps(N)` on Line, if it says so.
std::optional<int> numWarpsOn(StringRef Line) {
  size_t NW = Line.find("num_warps(");
  unsigned N = 0;
  if (NW == StringRef::npos ||
      Line.substr(NW + 10).take_while(isDigit).getAsInteger(10, N) || !N)
    return std::nullopt;
  return int(N);
}

/// The warps on the line before B's first op when that line, in T, is the
/// partition header Head: `partitionK(...) num_warps(N) {`.
std::optional<int> warpsOnHeaderLine(StringRef T, const Block &B,
                                     StringRef Head) {
  if (B.Ops.empty())
    return std::nullopt;
  const char *At = B.Ops.front()->Text.data();
  if (At <= T.begin() || At > T.end())
    return std::nullopt;
  StringRef Before = T.take_front(At - T.begin());
  size_t Eol = Before.rfind('\n');
  if (Eol == StringRef::npos)
    return std::nullopt;
  size_t Start = Before.rfind('\n', Eol);
  StringRef Line =
      Before.slice(Start == StringRef::npos ? 0 : Start + 1, Eol).ltrim();
  if (!Line.starts_with(Head))
    return std::nullopt;
  return numWarpsOn(Line);
}
} // namespace

int lookupNumWarps(const Operation &Op, const TtgirModule &M) {
  for (const Operation *Cur = &Op; Cur; Cur = Cur->parentOp()) {
    const Operation *Parent = Cur->parentOp();
    if (!Parent || Parent->Name != "ttg.warp_specialize")
      continue;
    unsigned Region = Cur->ParentBlock->Parent->Index;
    if (Region == 0)
      continue; // the default region runs with the enclosing warps
    // `partitionK(...) num_warps(N) {` heads region K + 1 in the op's text,
    // mostly on the line before the region's first op: that line is read
    // first, not the whole op's text (the default region before it holds
    // most of the kernel).
    std::string Head = "partition" + std::to_string(Region - 1) + "(";
    StringRef T = Parent->Text;
    if (std::optional<int> N = warpsOnHeaderLine(T, *Cur->ParentBlock, Head))
      return *N;
    for (size_t At = T.find(Head); At != StringRef::npos;
         At = T.find(Head, At + 1)) {
      size_t LineStart = T.rfind('\n', At);
      StringRef Before =
          T.slice(LineStart == StringRef::npos ? 0 : LineStart + 1, At);
      if (!Before.trim().empty())
        continue; // not at the start of a line
      if (std::optional<int> N = numWarpsOn(T.slice(At, T.find('\n', At))))
        return *N;
      break;
    }
  }
  return M.numWarps();
}

LoopCarried loopCarried(const Value &BlockArg) {
  LoopCarried LC;
  Block *B = BlockArg.OwnerBlock;
  if (!B || !B->Parent || !B->Parent->Parent)
    return LC;
  Operation *For = B->Parent->Parent;
  if (For->Name != "scf.for" || B->Parent->Index != 0 || BlockArg.Index == 0)
    return LC;
  unsigned K = BlockArg.Index - 1;
  if (3 + K < For->Operands.size())
    LC.Init = For->Operands[3 + K];
  if (K < For->Results.size())
    LC.Result = For->Results[K];
  if (!B->Ops.empty()) {
    Operation *Yield = B->Ops.back();
    if (Yield->Name == "scf.yield" && K < Yield->Operands.size())
      LC.Yielded = Yield->Operands[K];
  }
  return LC;
}

//===----------------------------------------------------------------------===//
// TtgirModule
//===----------------------------------------------------------------------===//

TtgirModule::TtgirModule() : I(std::make_unique<Impl>()) {}
TtgirModule::~TtgirModule() = default;

ArrayRef<NamedAttribute> TtgirModule::moduleAttributes() const {
  return ModuleOp ? ModuleOp->Attrs : ArrayRef<NamedAttribute>();
}

/// Module attribute Key ("ttg.num-warps"), or Old ("triton_gpu.num-warps")
/// as Triton 3.1 and older spelled it (triton-lang/triton#5266 renamed the
/// dialect).
static const Attribute *moduleAttr(const TtgirModule &M, StringRef Key,
                                   StringRef Old) {
  if (!M.module())
    return nullptr;
  const Attribute *A = M.module()->attr(Key);
  return A ? A : M.module()->attr(Old);
}

static int moduleInt(const TtgirModule &M, StringRef Key, StringRef Old,
                     int Default) {
  const Attribute *A = moduleAttr(M, Key, Old);
  if (!A || A->K != Attribute::Kind::Integer)
    return Default;
  return int(A->Int);
}

int TtgirModule::numWarps() const {
  return moduleInt(*this, "ttg.num-warps", "triton_gpu.num-warps", 4);
}
int TtgirModule::threadsPerWarp() const {
  return moduleInt(*this, "ttg.threads-per-warp", "triton_gpu.threads-per-warp",
                   32);
}
int TtgirModule::numCtas() const {
  return moduleInt(*this, "ttg.num-ctas", "triton_gpu.num-ctas", 1);
}

StringRef TtgirModule::target() const {
  const Attribute *A = moduleAttr(*this, "ttg.target", "triton_gpu.target");
  return A && A->K == Attribute::Kind::String ? A->Spelling : "";
}

const Attribute *TtgirModule::attributeAlias(StringRef Name) const {
  return I->Aliases.lookup(Name);
}

namespace {
/// The number of a location alias as Triton prints it ("#loc" 0, "#loc12"
/// 12, no leading zero), when it is no larger than Limit.
std::optional<size_t> locNumber(StringRef Name, size_t Limit) {
  if (!Name.consume_front("#loc"))
    return std::nullopt;
  if (Name.empty())
    return 0;
  if (Name[0] == '0' || Name.size() > 9) // a leading zero; above any Limit
    return std::nullopt;
  size_t N = 0; // by hand: getAsInteger cost more than the rest of the op
  for (char C : Name) {
    if (C < '0' || C > '9')
      return std::nullopt;
    N = N * 10 + size_t(C - '0');
  }
  if (N > Limit)
    return std::nullopt;
  return N;
}
} // namespace

size_t TtgirModule::Impl::maxNumberedLoc() const {
  // Triton numbers its aliases densely, one per line: four per line of the
  // file is past any it prints, and no name makes the table large.
  return 4 * LineStarts.size() + 16;
}

bool TtgirModule::Impl::defineLocAlias(StringRef Name, const Location *L) {
  if (std::optional<size_t> N = locNumber(Name, maxNumberedLoc())) {
    // Grown by doubling: a grow per alias (they come in order) cost a
    // tenth of the definitions' parse. Entries past the last are null.
    if (*N >= NumberedLocs.size())
      NumberedLocs.resize(std::max(*N + 1, 2 * NumberedLocs.size()), nullptr);
    if (NumberedLocs[*N])
      return false;
    NumberedLocs[*N] = L;
    return true;
  }
  return LocAliases.try_emplace(Name, L).second;
}

const Location *TtgirModule::Impl::locAlias(StringRef Name) const {
  // The bound of defineLocAlias, not the table's size: a name is in the
  // table or in LocAliases by its number alone.
  if (std::optional<size_t> N = locNumber(Name, maxNumberedLoc()))
    return *N < NumberedLocs.size() ? NumberedLocs[*N] : nullptr;
  return LocAliases.lookup(Name);
}

const Location *TtgirModule::locationAlias(StringRef Name) const {
  return I->locAlias(Name);
}

std::pair<unsigned, unsigned> TtgirModule::lineColOf(const char *Ptr) const {
  StringRef Text = I->Text;
  size_t Off = std::clamp<size_t>(Ptr - Text.begin(), 0, Text.size());
  if (Ptr < Text.begin())
    Off = 0;
  const auto &LS = I->LineStarts;
  if (LS.empty())
    return {1, unsigned(Off + 1)};
  auto It = std::upper_bound(LS.begin(), LS.end(), uint32_t(Off));
  size_t Line = It - LS.begin(); // 1-based
  return {unsigned(Line), unsigned(Off - LS[Line - 1] + 1)};
}

StringRef TtgirModule::text() const { return I->Text; }

} // namespace gestell
