//===- KernelMatch.cpp - Which kernel of one build is which of another ----===//
#include "KernelMatch.h"

#include "gestell/Input.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

using namespace llvm;

namespace gestell::driver {

namespace {

/// A type without its layout: "!tt.ptr<f16>", "128x64xf16", "i32".
std::string typeKey(const Type *T) {
  if (!T)
    return "?";
  switch (T->K) {
  case Type::Kind::Scalar:
    return T->Name.str();
  case Type::Kind::Pointer: {
    std::string S = "!tt.ptr<" + typeKey(T->Element);
    if (T->AddressSpace != 1)
      S += ", " + std::to_string(T->AddressSpace);
    return S + ">";
  }
  case Type::Kind::Tensor:
  case Type::Kind::MemDesc: {
    std::string S;
    for (int64_t D : T->Shape)
      S += (D < 0 ? std::string("?") : std::to_string(D)) + "x";
    S += typeKey(T->Element);
    return T->K == Type::Kind::MemDesc ? "!ttg.memdesc<" + S + ">"
                                       : "tensor<" + S + ">";
  }
  case Type::Kind::TensorDesc:
    return "!tt.tensordesc<" + typeKey(T->Element) + ">";
  case Type::Kind::Other:
    return T->Text.str();
  }
  return T->Text.str();
}

/// Shape and element type of a dot operand: "128x64xf16".
std::string tileOf(const Type *T) {
  if (!T)
    return "?";
  std::string S;
  for (int64_t D : T->Shape)
    S += (D < 0 ? std::string("?") : std::to_string(D)) + "x";
  return S + T->elementName().str();
}

bool isDot(StringRef Name) {
  return Name == "tt.dot" || Name == "tt.dot_scaled" ||
         Name == "ttng.warp_group_dot" || Name == "ttng.tc_gen5_mma" ||
         Name == "ttng.tc_gen5_mma_scaled";
}

const Operation *kernelFunction(const TtgirModule &M, StringRef Name) {
  for (const Operation *F : M.functions())
    if (F->Symbol == Name)
      return F;
  return M.functions().empty() ? nullptr : M.functions().front();
}

template <typename T>
bool agree(const std::optional<T> &A, const std::optional<T> &B) {
  return !A || !B || *A == *B;
}

/// Whether two key texts are equal: one interned text (internKeyText) is
/// one pointer, so the bytes are compared only for texts made otherwise.
bool sameText(StringRef A, StringRef B) {
  return (A.data() == B.data() && A.size() == B.size()) || A == B;
}
bool agree(const std::optional<StringRef> &A,
           const std::optional<StringRef> &B) {
  return !A || !B || sameText(*A, *B);
}

/// The program digest of K's .source, else its .ttir; none without either
/// (or when it does not read: the checks that read it say why).
std::optional<uint64_t> programOf(const Kernel &K) {
  for (Stage S : {Stage::Source, Stage::TTIR}) {
    if (!K.has(S))
      continue;
    Expected<std::unique_ptr<MemoryBuffer>> Buf =
        openArtifact(K.path(S), Content::Text);
    if (!Buf) {
      consumeError(Buf.takeError());
      return std::nullopt;
    }
    // Tagged by stage: a .source and a .ttir never agree.
    return programDigest((*Buf)->getBuffer()) + uint64_t(S);
  }
  return std::nullopt;
}
/// The PTX's ISA version ("8.7"), from the header; "" without one.
std::string ptxVersionOf(const Kernel &K) {
  if (!K.has(Stage::PTX))
    return "";
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(K.path(Stage::PTX), Content::Text);
  if (!Buf) {
    consumeError(Buf.takeError());
    return "";
  }
  StringRef Head = (*Buf)->getBuffer().take_front(4096);
  size_t At = Head.starts_with(".version ") ? 0 : Head.find("\n.version ");
  if (At == StringRef::npos)
    return "";
  Head = Head.drop_front(At).ltrim();
  return Head.drop_front(strlen(".version ")).take_until(isSpace).str();
}
} // namespace

void addIdentity(MatchKey &Key, const Kernel &K) {
  if (Key.IdentityRead)
    return;
  Key.Program = programOf(K);
  Key.Toolchain = internKeyText(ptxVersionOf(K));
  Key.IdentityRead = true;
}

uint64_t programDigest(StringRef Text) {
  std::string Kept;
  Kept.reserve(Text.size());
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    if (Line.ltrim().starts_with("#loc"))
      continue; // a location alias
    for (size_t I = 0; I < Line.size();) {
      size_t At = Line.find("loc(", I);
      if (At == StringRef::npos || (At && isAlnum(Line[At - 1])) ||
          (At && Line[At - 1] == '_')) {
        size_t End = At == StringRef::npos ? Line.size() : At + 4;
        Kept.append(Line.data() + I, End - I);
        I = End;
        continue;
      }
      Kept.append(Line.data() + I, At - I);
      while (!Kept.empty() && Kept.back() == ' ')
        Kept.pop_back();
      // Past the balanced parentheses, strings read whole.
      size_t J = At + 4;
      for (int Depth = 1; J < Line.size() && Depth; ++J) {
        if (Line[J] == '"') {
          for (++J; J < Line.size() && Line[J] != '"'; ++J)
            J += Line[J] == '\\';
        } else {
          Depth += Line[J] == '(';
          Depth -= Line[J] == ')';
        }
      }
      I = J;
    }
    Kept += '\n';
  }
  return xxh3_64bits(arrayRefFromStringRef(Kept));
}

StringRef internKeyText(StringRef Text) {
  if (Text.empty())
    return StringRef();
  static std::mutex Lock;
  static StringSet<BumpPtrAllocator> Table;
  std::lock_guard<std::mutex> G(Lock);
  return Table.insert(Text).first->getKey();
}

MatchKey matchKeyOf(const Kernel &K, const TtgirModule *M) {
  MatchKey Key;
  Key.Name = internKeyText(K.Name);
  Key.Target = internKeyText(K.target());
  if (K.Meta) {
    Key.Hash = internKeyText(K.Meta->Hash);
    Key.NumWarps = K.Meta->NumWarps;
    Key.NumStages = K.Meta->NumStages;
    if (!K.Meta->Constants.empty())
      Key.Constants = internKeyText(K.Meta->Constants);
  }
  if (M)
    addTtgirParts(Key, ttgirKeyParts(*M, K.Name));
  return Key;
}

TtgirKeyParts ttgirKeyParts(const TtgirModule &M, StringRef Name) {
  TtgirKeyParts P;
  P.Target = M.target().str();
  P.NumWarps = M.numWarps();
  if (const Operation *F = kernelFunction(M, Name)) {
    SmallVector<std::string, 8> Args;
    if (!F->Regions.empty() && !F->Regions[0]->Blocks.empty())
      for (const Value *A : F->Regions[0]->Blocks[0]->Args)
        Args.push_back(typeKey(A->Ty));
    P.Signature = "(" + join(Args, ", ") + ")";
  }
  std::set<std::string> Tiles;
  for (const Operation *Op : M.ops())
    if (isDot(Op->Name) && Op->Operands.size() >= 2)
      Tiles.insert(tileOf(Op->operandType(0)) + " * " +
                   tileOf(Op->operandType(1)));
  P.Tiles = join(Tiles, ", ");
  return P;
}

void addTtgirParts(MatchKey &Key, const TtgirKeyParts &P) {
  if (Key.Target.empty())
    Key.Target = internKeyText(P.Target);
  if (!Key.NumWarps)
    Key.NumWarps = P.NumWarps;
  Key.Signature =
      P.Signature ? std::optional(internKeyText(*P.Signature)) : std::nullopt;
  Key.Tiles = internKeyText(P.Tiles); // "" (no dots) is a value
}

std::string MatchKey::str() const {
  std::string S;
  raw_string_ostream OS(S);
  OS << Name;
  if (!Target.empty())
    OS << " " << Target;
  if (NumWarps)
    OS << " warps=" << *NumWarps;
  if (NumStages)
    OS << " stages=" << *NumStages;
  if (Signature)
    OS << " " << *Signature;
  if (Tiles && !Tiles->empty())
    OS << " tiles " << *Tiles;
  return S;
}

bool MatchKey::compatible(const MatchKey &O) const {
  return sameText(Name, O.Name) &&
         (Target.empty() || O.Target.empty() || sameText(Target, O.Target)) &&
         agree(NumWarps, O.NumWarps) && agree(NumStages, O.NumStages) &&
         agree(Signature, O.Signature) && agree(Tiles, O.Tiles);
}

bool MatchKey::operator<(const MatchKey &O) const {
  return std::tie(Name, Target, NumWarps, NumStages, Signature, Tiles, Hash,
                  Program, Toolchain) <
         std::tie(O.Name, O.Target, O.NumWarps, O.NumStages, O.Signature,
                  O.Tiles, O.Hash, O.Program, O.Toolchain);
}

std::vector<KeyDifference> keyDifferences(const MatchKey &A,
                                          const MatchKey &B) {
  std::vector<KeyDifference> Out;
  auto Num = [](const std::optional<int64_t> &V) { return std::to_string(*V); };
  if (!A.Target.empty() && !B.Target.empty() && A.Target != B.Target)
    Out.push_back({"target", A.Target.str(), B.Target.str()});
  if (!agree(A.NumWarps, B.NumWarps))
    Out.push_back({"num_warps", Num(A.NumWarps), Num(B.NumWarps)});
  if (!agree(A.NumStages, B.NumStages))
    Out.push_back({"num_stages", Num(A.NumStages), Num(B.NumStages)});
  if (!agree(A.Signature, B.Signature))
    Out.push_back({"signature", A.Signature->str(), B.Signature->str()});
  if (!agree(A.Tiles, B.Tiles))
    Out.push_back({"tiles", A.Tiles->str(), B.Tiles->str()});
  if (!agree(A.Constants, B.Constants))
    Out.push_back({"constexprs", A.Constants->str(), B.Constants->str()});
  return Out;
}

StringRef matchHowName(MatchHow H) {
  switch (H) {
  case MatchHow::Exact:
    return "exact";
  case MatchHow::Closest:
    return "closest";
  case MatchHow::Explicit:
    return "explicit";
  }
  return "";
}

namespace {
void pair(Matching &M, unsigned B, unsigned H, MatchHow How) {
  M.BaseMatch[B] = H;
  M.HeadMatch[H] = B;
  M.HeadHow[H] = How;
}

/// Kernels of one side whose keys are identical in every part (constexprs
/// too): they are as far from any kernel of the other side, so distances
/// are counted per class, not per pair of kernels (N copies of an autotune
/// sweep are N-fold classes).
struct KeyClass {
  unsigned Rep;                     ///< a member, for its key
  SmallVector<unsigned, 2> Members; ///< ascending
};

std::vector<KeyClass> classesOf(ArrayRef<const MatchKey *> Keys,
                                ArrayRef<unsigned> Of) {
  auto Tie = [&](unsigned I) {
    const MatchKey &K = *Keys[I];
    return std::tie(K.Target, K.NumWarps, K.NumStages, K.Signature, K.Tiles,
                    K.Constants, K.Hash, K.Program, K.Toolchain);
  };
  auto Less = [&](unsigned A, unsigned B) { return Tie(A) < Tie(B); };
  std::map<unsigned, unsigned, decltype(Less)> ClassOf(Less);
  std::vector<KeyClass> Out;
  for (unsigned I : Of) {
    auto [It, New] = ClassOf.try_emplace(I, Out.size());
    if (New)
      Out.push_back({I, {}});
    Out[It->second].Members.push_back(I);
  }
  return Out;
}

/// How surely two compatible kernels are one: 4 the same compile, 3 the
/// same program by the same toolchain, 2 the same program, 0 only keys
/// that agree.
unsigned affinity(const MatchKey &A, const MatchKey &B) {
  if (!A.Hash.empty() && A.Hash == B.Hash)
    return 4;
  if (!A.Program || !B.Program || *A.Program != *B.Program)
    return 0;
  return !A.Toolchain.empty() && A.Toolchain == B.Toolchain ? 3 : 2;
}

/// The members of the classes Picked, ascending.
std::vector<unsigned> membersOf(ArrayRef<KeyClass> Classes,
                                ArrayRef<unsigned> Picked) {
  std::vector<unsigned> Out;
  for (unsigned C : Picked)
    Out.insert(Out.end(), Classes[C].Members.begin(), Classes[C].Members.end());
  llvm::sort(Out);
  return Out;
}

/// The kernels of one name without a match, paired level by level of
/// distance (the number of differing key parts): at each level a kernel
/// whose only undecided partner at that distance has it as its only one is
/// paired; kernels with several there (a tie) are decided as ambiguous,
/// with those as candidates. Worked on classes of identical keys, so time
/// and memory go with the distinct keys, not with the kernels squared.
void pairLeftovers(Matching &M, ArrayRef<const MatchKey *> Base,
                   ArrayRef<const MatchKey *> Head, ArrayRef<unsigned> Bs,
                   ArrayRef<unsigned> Hs) {
  std::vector<KeyClass> CB = classesOf(Base, Bs), CH = classesOf(Head, Hs);
  // Distances between classes, and the levels they make.
  std::vector<std::vector<uint8_t>> Dist(CB.size(),
                                         std::vector<uint8_t>(CH.size()));
  std::set<uint8_t> Levels;
  for (size_t B = 0; B < CB.size(); ++B)
    for (size_t H = 0; H < CH.size(); ++H)
      Levels.insert(
          Dist[B][H] = uint8_t(
              keyDifferences(*Base[CB[B].Rep], *Head[CH[H].Rep]).size()));
  std::vector<bool> DoneB(CB.size()), DoneH(CH.size());
  for (uint8_t Distance : Levels) {
    std::vector<std::vector<unsigned>> AtB(CB.size()), AtH(CH.size());
    for (size_t B = 0; B < CB.size(); ++B)
      for (size_t H = 0; H < CH.size(); ++H)
        if (!DoneB[B] && !DoneH[H] && Dist[B][H] == Distance) {
          AtB[B].push_back(H);
          AtH[H].push_back(B);
        }
    // Unique both ways: one kernel on each side, nothing else at this
    // distance.
    auto alone = [](const KeyClass &C) { return C.Members.size() == 1; };
    for (size_t B = 0; B < CB.size(); ++B)
      if (AtB[B].size() == 1 && alone(CB[B]) && AtH[AtB[B][0]].size() == 1 &&
          alone(CH[AtB[B][0]]))
        pair(M, CB[B].Members[0], CH[AtB[B][0]].Members[0], MatchHow::Closest);
    // The rest of this level is tied: ambiguous, never guessed. (At
    // distance 0 their candidates are already the compatible kernels.)
    // One side at a time: its classes, what each has at this level, the
    // other side's classes.
    auto decide = [&](ArrayRef<KeyClass> Own,
                      ArrayRef<std::vector<unsigned>> At,
                      std::vector<bool> &Done, ArrayRef<KeyClass> Other,
                      ArrayRef<std::optional<unsigned>> Match,
                      std::vector<std::vector<unsigned>> &Candidates) {
      for (size_t C = 0; C < Own.size(); ++C) {
        if (At[C].empty())
          continue;
        Done[C] = true;
        if (Distance)
          for (unsigned K : Own[C].Members)
            if (!Match[K])
              Candidates[K] = membersOf(Other, At[C]);
      }
    };
    decide(CB, AtB, DoneB, CH, M.BaseMatch, M.BaseCandidates);
    decide(CH, AtH, DoneH, CB, M.HeadMatch, M.HeadCandidates);
  }
}
} // namespace

Matching matchKernels(ArrayRef<const MatchKey *> Base,
                      ArrayRef<const MatchKey *> Head,
                      const MatchOptions &Opts) {
  Matching M;
  M.BaseCandidates.resize(Base.size());
  M.HeadCandidates.resize(Head.size());
  M.BaseMatch.resize(Base.size());
  M.HeadMatch.resize(Head.size());
  M.HeadHow.resize(Head.size(), MatchHow::Exact);
  for (auto [B, H] : Opts.Forced)
    pair(M, B, H, MatchHow::Explicit);
  // Names decide first: index the base by name so a large cache is not
  // compared all against all; within a name, by classes of identical keys
  // (copies of one build are compared once).
  StringMap<std::vector<unsigned>> ByName;
  for (unsigned B = 0; B < Base.size(); ++B)
    if (!M.BaseMatch[B])
      ByName[Base[B]->Name].push_back(B);
  StringMap<std::vector<KeyClass>> ClassesByName;
  for (auto &E : ByName)
    ClassesByName[E.first()] = classesOf(Base, E.second);
  // Among compatible kernels, each keeps those it has the most affinity
  // with: the same compile, then the same program. A class's members share
  // the key parts affinity reads, so the best of every base kernel is known
  // per class before any list is made, and no list ever holds the kernels
  // of a name that a better one rules out (thousands of copies of one
  // kernel would make those lists quadratic).
  auto ClassesOf = [&](unsigned H) -> ArrayRef<KeyClass> {
    if (M.HeadMatch[H])
      return {};
    auto It = ClassesByName.find(Head[H]->Name);
    if (It == ClassesByName.end())
      return {};
    return It->second;
  };
  DenseMap<const KeyClass *, unsigned> BestOfClass;
  std::vector<unsigned> BestOfHead(Head.size(), 0);
  // Each head kernel's compatible classes and its affinity with each, found
  // once and read twice.
  std::vector<SmallVector<std::pair<const KeyClass *, unsigned>, 1>> Compatible(
      Head.size());
  for (unsigned H = 0; H < Head.size(); ++H)
    for (const KeyClass &C : ClassesOf(H))
      if (Base[C.Rep]->compatible(*Head[H])) {
        unsigned A = affinity(*Head[H], *Base[C.Rep]);
        Compatible[H].push_back({&C, A});
        BestOfHead[H] = std::max(BestOfHead[H], A);
        unsigned &BC = BestOfClass[&C];
        BC = std::max(BC, A);
      }
  for (unsigned H = 0; H < Head.size(); ++H) {
    for (auto [Class, A] : Compatible[H]) {
      const KeyClass &C = *Class;
      if (A == BestOfHead[H])
        llvm::append_range(M.HeadCandidates[H], C.Members);
      if (A == BestOfClass[&C])
        for (unsigned B : C.Members)
          M.BaseCandidates[B].push_back(H);
    }
    llvm::sort(M.HeadCandidates[H]);
  }
  for (unsigned H = 0; H < Head.size(); ++H) {
    if (M.HeadMatch[H] || M.HeadCandidates[H].size() != 1)
      continue;
    unsigned B = M.HeadCandidates[H].front();
    if (M.BaseCandidates[B].size() != 1 || M.BaseCandidates[B].front() != H)
      continue;
    pair(M, B, H, MatchHow::Exact);
  }
  // A kernel matched by a surer pair is no candidate of the others (a
  // second build of a kernel whose same compile matched has appeared).
  for (unsigned H = 0; H < Head.size(); ++H)
    if (!M.HeadMatch[H])
      llvm::erase_if(M.HeadCandidates[H],
                     [&](unsigned B) { return M.BaseMatch[B].has_value(); });
  for (unsigned B = 0; B < Base.size(); ++B)
    if (!M.BaseMatch[B])
      llvm::erase_if(M.BaseCandidates[B],
                     [&](unsigned H) { return M.HeadMatch[H].has_value(); });
  if (!Opts.PairLeftovers)
    return M;
  StringMap<std::pair<SmallVector<unsigned, 4>, SmallVector<unsigned, 4>>> Left;
  for (unsigned B = 0; B < Base.size(); ++B)
    if (!M.BaseMatch[B])
      Left[Base[B]->Name].first.push_back(B);
  for (unsigned H = 0; H < Head.size(); ++H)
    if (!M.HeadMatch[H])
      Left[Head[H]->Name].second.push_back(H);
  for (auto &E : Left)
    if (!E.second.first.empty() && !E.second.second.empty())
      pairLeftovers(M, Base, Head, E.second.first, E.second.second);
  return M;
}

Matching matchKernels(ArrayRef<MatchKey> Base, ArrayRef<MatchKey> Head,
                      const MatchOptions &Opts) {
  auto Pointers = [](ArrayRef<MatchKey> Keys) {
    std::vector<const MatchKey *> P;
    P.reserve(Keys.size());
    for (const MatchKey &K : Keys)
      P.push_back(&K);
    return P;
  };
  return matchKernels(Pointers(Base), Pointers(Head), Opts);
}

} // namespace gestell::driver
