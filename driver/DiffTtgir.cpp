//===- DiffTtgir.cpp - TTGIR ops per loop, and what changed between builds ===//
//
// A loop is known across builds by the source location of its loop op (the
// user frame of its scf.for), never by its line in the .ttgir, which any
// inserted op moves. Within a loop an op is known by its name and the
// canonical text of its layouts (Layout.h), never by the per-file alias
// names (#blocked2 in one build is #blocked in another): the layout pair is
// the encoding of the first operand that has one, and of the first result
// that has one (for an op without such a result, of the next operand that
// has one: ttng.tmem_store reads `#blocked -> #tmem`). Aliases are shown by
// their kind only ("#linear -> #blocked"); the canonical texts say which.
//
//===----------------------------------------------------------------------===//
#include "DiffModel.h"

#include "gestell/Input.h"
#include "gestell/Layout.h"
#include "gestell/SourceLoc.h"
#include "gestell/TtgirReport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <mutex>
#include <set>
#include <tuple>

using namespace llvm;

namespace gestell::driver {

namespace {

std::string userSource(const Location *L) {
  std::optional<SourceFrame> F = userFrame(resolveLocation(L));
  return F ? formatFrame(*F) : "";
}

const Attribute *encodingOf(const Type *T) {
  if (!T || (T->K != Type::Kind::Tensor && T->K != Type::Kind::MemDesc))
    return nullptr;
  return T->Encoding;
}

/// "#blocked" for #ttg.blocked<...>, "#mma" for #ttg.nvidia_mma<...>: the
/// name Triton's printer gives such an alias, without its number.
std::string shortLayoutName(const Attribute &A) {
  if (A.K != Attribute::Kind::Dialect)
    return A.AliasName.empty() ? A.Text.str()
                               : A.AliasName.rtrim("0123456789").str();
  StringRef N = A.Spelling.rsplit('.').second;
  if (N.empty())
    N = A.Spelling;
  if (N == "nvidia_mma" || N == "amd_mfma" || N == "amd_wmma")
    return "#mma";
  if (N.ends_with("_shared"))
    return "#shared";
  if (N == "shared_memory")
    return "#smem";
  if (N == "tensor_memory_encoding")
    return "#tmem";
  if (N == "tensor_memory_scales_encoding")
    return "#tmem_scales";
  return ("#" + N).str();
}

std::string shapeOf(const Type *T) {
  if (!T || T->Shape.empty())
    return "";
  std::string S;
  for (int64_t D : T->Shape)
    S += (D < 0 ? std::string("?") : std::to_string(D)) + "x";
  return S + T->elementName().str();
}

/// The layouts an op reads and makes (see the file comment).
std::pair<const Attribute *, const Attribute *>
layoutPair(const Operation &Op) {
  const Attribute *Src = nullptr, *Dst = nullptr;
  unsigned SrcOperand = 0;
  for (unsigned I = 0; I < Op.Operands.size() && !Src; ++I)
    if ((Src = encodingOf(Op.operandType(I))))
      SrcOperand = I;
  for (unsigned I = 0; I < Op.Results.size() && !Dst; ++I)
    Dst = encodingOf(Op.resultType(I));
  if (!Dst && Src)
    for (unsigned I = SrcOperand + 1; I < Op.Operands.size() && !Dst; ++I)
      Dst = encodingOf(Op.operandType(I));
  return {Src, Dst};
}

/// The type an op works on, for the report: its first tensor operand, else
/// its first tensor result.
/// The type a site is compared by: its first tensor operand's, else its
/// first tensor result's; null when it has neither.
const Type *siteType(const Operation &Op) {
  for (unsigned I = 0; I < Op.Operands.size(); ++I)
    if (const Type *T = Op.operandType(I); T && T->isTensor())
      return T;
  for (unsigned I = 0; I < Op.Results.size(); ++I)
    if (const Type *T = Op.resultType(I); T && T->isTensor())
      return T;
  return nullptr;
}

} // namespace

namespace {
/// DiffStrings' table: every string once, for the run.
struct StringTable {
  std::mutex Lock;
  StringMap<uint32_t> Ids;
  std::vector<StringRef> Texts{StringRef()};
};
StringTable &strings() {
  static StringTable T;
  return T;
}
} // namespace

uint32_t DiffStrings::intern(StringRef S) {
  if (S.empty())
    return 0;
  StringTable &T = strings();
  std::lock_guard<std::mutex> G(T.Lock);
  auto [It, New] = T.Ids.try_emplace(S, uint32_t(T.Texts.size()));
  if (New)
    T.Texts.push_back(It->first());
  return It->second;
}

std::string DiffStrings::get(uint32_t Id) {
  if (!Id)
    return "";
  StringTable &T = strings();
  std::lock_guard<std::mutex> G(T.Lock);
  return T.Texts[Id].str();
}

const TtgirGroupSummary *TtgirLoop::find(uint32_t Key) const {
  for (const TtgirGroupSummary &G : Ops)
    if (G.Key == Key)
      return &G;
  return nullptr;
}

TtgirSummary summarizeTtgir(const TtgirModule &M, StringRef File) {
  TtgirSummary S;
  S.File = File.str();
  // Conversion costs, from the SDK's report (keyed by position).
  std::map<std::pair<unsigned, unsigned>, std::string> Costs;
  for (const ConversionReport &C : reportTtgir(M).Conversions)
    if (C.Cost)
      Costs[{C.Line, C.Column}] = *C.Cost;

  DenseMap<const Operation *, unsigned> LoopIndex;
  StringMap<unsigned> KeyUses;
  S.Loops.push_back({"(outside loops)", "", 0, 0, {}});
  // Per loop, the groups by identity while they are filled.
  std::vector<std::map<std::string, TtgirGroupSummary>> Groups(1);
  unsigned Unlocated = 0;
  DenseMap<const Attribute *, std::string> Canonical;
  auto canonical = [&](const Attribute *A) -> std::string {
    if (!A)
      return "";
    auto It = Canonical.find(A);
    if (It == Canonical.end())
      It = Canonical.try_emplace(A, canonicalLayoutText(*A, M)).first;
    return It->second;
  };
  StringRef Text = M.text();
  // Ops share locations (#loc aliases) and types (the parser uniques
  // them): each is formatted and interned once per module.
  DenseMap<const Location *, uint32_t> SourceIds;
  auto sourceId = [&](const Location *L) {
    while (L && L->K == Location::Kind::Alias && L->Target)
      L = L->Target; // ops on one line share the alias's definition
    auto [It, New] = SourceIds.try_emplace(L, 0);
    if (New)
      It->second = DiffStrings::intern(userSource(L));
    return It->second;
  };
  DenseMap<const Type *, uint32_t> TypeIds;
  auto typeId = [&](const Type *T) -> uint32_t {
    if (!T)
      return 0;
    auto [It, New] = TypeIds.try_emplace(T, 0);
    if (New)
      It->second = DiffStrings::intern(shapeOf(T));
    return It->second;
  };

  for (const Operation *Op : M.ops()) {
    if (Op == M.module() || Op->Name == "tt.func" || Op->Name == "func.func")
      continue;
    const Operation *Loop = Op->enclosingLoop();
    unsigned Into = Loop ? LoopIndex.lookup(Loop) : 0;
    if (Op->isLoop()) {
      std::string Own = userSource(Op->Loc);
      if (Own.empty())
        Own = Op->Name.str() + " #" + std::to_string(++Unlocated);
      std::string Key = Into ? S.Loops[Into].Key + " > " + Own : Own;
      if (unsigned N = ++KeyUses[Key]; N > 1)
        Key += " #" + std::to_string(N);
      LoopIndex[Op] = S.Loops.size();
      S.Loops.push_back(
          {Key, Op->Name.str(), Op->Line, Op->loopDepth() + 1, {}});
      Groups.emplace_back();
    }
    auto [SrcA, DstA] = layoutPair(*Op);
    std::string Src = canonical(SrcA), Dst = canonical(DstA);
    std::string GroupKey = Op->Name.str() + "\n" + Src + "\n" + Dst;
    auto [GIt, New] = Groups[Into].try_emplace(GroupKey);
    TtgirGroupSummary &G = GIt->second;
    if (New) {
      G.Key = DiffStrings::intern(GroupKey);
      G.Op = DiffStrings::intern(Op->Name);
      G.Src = DiffStrings::intern(Src);
      G.Dst = DiffStrings::intern(Dst);
      if (SrcA && DstA)
        G.Layouts = DiffStrings::intern(shortLayoutName(*SrcA) + " -> " +
                                        shortLayoutName(*DstA));
      else if (SrcA)
        G.Layouts = DiffStrings::intern(shortLayoutName(*SrcA));
    }
    TtgirSiteRef Site;
    Site.Line = Op->Line;
    Site.Column = Op->Column;
    Site.Offset = uint32_t(Op->Text.data() - Text.data());
    Site.FirstLine = uint32_t(Op->Text.split('\n').first.size());
    Site.Source = sourceId(Op->Loc);
    Site.Type = typeId(siteType(*Op));
    if (auto It = Costs.find({Op->Line, Op->Column}); It != Costs.end())
      Site.Cost = DiffStrings::intern(It->second);
    G.Sites.push_back(Site);
  }
  for (size_t L = 0; L < S.Loops.size(); ++L) {
    S.Loops[L].Ops.reserve(Groups[L].size());
    for (auto &[Key, G] : Groups[L]) {
      G.Sites.shrink_to_fit();
      S.Loops[L].Ops.push_back(std::move(G));
    }
  }
  return S;
}

namespace {
/// Sites of A that B has no counterpart for (same source line and type),
/// in A's order.
std::vector<TtgirSiteRef> unmatchedSites(ArrayRef<TtgirSiteRef> A,
                                         ArrayRef<TtgirSiteRef> B) {
  std::multiset<std::pair<uint32_t, uint32_t>> Other;
  for (const TtgirSiteRef &S : B)
    Other.insert({S.Source, S.Type});
  std::vector<TtgirSiteRef> Out;
  for (const TtgirSiteRef &S : A) {
    auto It = Other.find({S.Source, S.Type});
    if (It != Other.end())
      Other.erase(It);
    else
      Out.push_back(S);
  }
  return Out;
}

/// The TtgirOpSite of a summary's site: its op's first line read from the
/// .ttgir again, trimmed and cut at 400 bytes, as the parse had it ("" if
/// the file can no longer be read there).
TtgirOpSite siteOf(const TtgirSummary &S, const TtgirSiteRef &R,
                   StringMap<std::unique_ptr<MemoryBuffer>> &Files) {
  TtgirOpSite Site;
  Site.File = S.File;
  Site.Line = R.Line;
  Site.Column = R.Column;
  Site.Source = DiffStrings::get(R.Source);
  Site.Type = DiffStrings::get(R.Type);
  Site.Cost = DiffStrings::get(R.Cost);
  auto [It, New] = Files.try_emplace(S.File);
  if (New) {
    // openArtifact also reads a stage of a TritonParse trace (its label).
    if (Expected<std::unique_ptr<MemoryBuffer>> B =
            openArtifact(S.File, Content::Text))
      It->second = std::move(*B);
    else
      consumeError(B.takeError());
  }
  if (const MemoryBuffer *B = It->second.get();
      B && uint64_t(R.Offset) + R.FirstLine <= B->getBufferSize()) {
    StringRef Text = B->getBuffer().substr(R.Offset, R.FirstLine).trim();
    Site.Text = Text.take_front(400).str();
    if (Text.size() > 400)
      Site.Text += "...";
  }
  return Site;
}
} // namespace

std::vector<TtgirChange> diffTtgir(ArrayRef<const TtgirSummary *> PerState) {
  std::vector<TtgirChange> Out;
  if (PerState.empty() || !PerState[0])
    return Out;
  const unsigned N = PerState.size();
  // Loop keys in order of first appearance: the base's, then new ones.
  std::vector<std::string> Keys;
  StringMap<bool> SeenKey;
  for (const TtgirSummary *S : PerState)
    if (S)
      for (const TtgirLoop &L : S->Loops)
        if (SeenKey.try_emplace(L.Key, true).second)
          Keys.push_back(L.Key);
  auto findLoop = [](const TtgirSummary *S,
                     StringRef Key) -> const TtgirLoop * {
    if (!S)
      return nullptr;
    for (const TtgirLoop &L : S->Loops)
      if (L.Key == Key)
        return &L;
    return nullptr;
  };
  StringMap<std::unique_ptr<MemoryBuffer>> Files;

  for (const std::string &Key : Keys) {
    std::vector<const TtgirLoop *> Loops(N);
    std::map<std::string, uint32_t> Groups; // by the identity's text
    for (unsigned I = 0; I < N; ++I) {
      Loops[I] = findLoop(PerState[I], Key);
      if (Loops[I])
        for (const TtgirGroupSummary &G : Loops[I]->Ops)
          if (!Groups.count(DiffStrings::get(G.Key)))
            Groups.emplace(DiffStrings::get(G.Key), G.Key);
    }
    for (const auto &[GKText, GK] : Groups) {
      TtgirChange C;
      C.Loop = Key;
      C.Counts.resize(N);
      C.LoopLine.resize(N);
      C.Sites.resize(N);
      std::vector<const TtgirGroupSummary *> Gs(N);
      for (unsigned I = 0; I < N; ++I) {
        if (!PerState[I])
          continue;
        C.Counts[I] = 0;
        if (!Loops[I])
          continue;
        if (Loops[I]->Depth)
          C.LoopLine[I] = Loops[I]->Line;
        const TtgirGroupSummary *G = Loops[I]->find(GK);
        if (!G)
          continue;
        Gs[I] = G;
        C.Counts[I] = G->Sites.size();
        if (C.Group.Op.empty()) {
          C.Group.Op = DiffStrings::get(G->Op);
          C.Group.Layouts = DiffStrings::get(G->Layouts);
          C.Group.Src = DiffStrings::get(G->Src);
          C.Group.Dst = DiffStrings::get(G->Dst);
        }
      }
      bool Changed = false;
      std::set<std::pair<unsigned, unsigned>> BaseShown;
      for (unsigned I = 1; I < N; ++I) {
        if (!C.Counts[I] || *C.Counts[I] == *C.Counts[0])
          continue;
        Changed = true;
        ArrayRef<TtgirSiteRef> Here, There;
        if (Gs[I])
          Here = Gs[I]->Sites;
        if (Gs[0])
          There = Gs[0]->Sites;
        if (*C.Counts[I] > *C.Counts[0]) {
          std::vector<TtgirSiteRef> More = unmatchedSites(Here, There);
          if (More.empty())
            More.assign(Here.begin(), Here.end());
          for (const TtgirSiteRef &R : More)
            C.Sites[I].push_back(siteOf(*PerState[I], R, Files));
        } else {
          std::vector<TtgirSiteRef> Lost = unmatchedSites(There, Here);
          if (Lost.empty())
            Lost.assign(There.begin(), There.end());
          for (const TtgirSiteRef &R : Lost)
            if (BaseShown.insert({R.Line, R.Column}).second)
              C.Sites[0].push_back(siteOf(*PerState[0], R, Files));
        }
      }
      if (!Changed)
        continue;
      llvm::sort(C.Sites[0], [](const TtgirOpSite &A, const TtgirOpSite &B) {
        return std::tie(A.Line, A.Column) < std::tie(B.Line, B.Column);
      });
      Out.push_back(std::move(C));
    }
  }
  return Out;
}

void fillSourceLines(DiffReport &R, const PathMap &Paths,
                     const ReadScope &Scope) {
  StringMap<std::optional<std::vector<std::string>>> Files;
  auto lines = [&](StringRef File) -> const std::vector<std::string> * {
    auto It = Files.find(File);
    if (It == Files.end()) {
      std::optional<std::vector<std::string>> L;
      std::vector<std::string> Candidates{File.str()};
      if (std::string Mapped = Paths.map(File); Mapped != File)
        Candidates.push_back(std::move(Mapped));
      for (const std::string &C : Candidates) {
        uint64_t Size = 0;
        if (!Scope.permits(C) || sys::fs::file_size(C, Size) ||
            Size > (16u << 20))
          continue;
        ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(C);
        if (!B)
          continue;
        SmallVector<StringRef, 0> Split;
        (*B)->getBuffer().split(Split, '\n');
        L.emplace();
        for (StringRef S : Split)
          L->push_back(S.rtrim("\r").str());
        break;
      }
      It = Files.try_emplace(File, std::move(L)).first;
    }
    return It->second ? &*It->second : nullptr;
  };
  // Source is "file:line:col"; the file may hold ':' itself.
  auto lineOf = [&](StringRef Source) -> std::string {
    auto [FileLine, Col] = Source.rsplit(':');
    auto [File, Line] = FileLine.rsplit(':');
    unsigned N = 0;
    if (File.empty() || Line.getAsInteger(10, N) || N == 0)
      return "";
    if (const std::vector<std::string> *L = lines(File); L && N <= L->size())
      return StringRef((*L)[N - 1]).trim().str();
    return "";
  };
  for (KernelDiff &D : R.Kernels)
    for (TtgirChange &C : D.Ttgir) {
      // The loop key's innermost part, without a " #N" repeat mark.
      StringRef Own = StringRef(C.Loop).rsplit(" > ").second;
      if (Own.empty())
        Own = C.Loop;
      C.LoopSourceText = lineOf(Own.split(" #").first);
      for (auto &PerState : C.Sites)
        for (TtgirOpSite &S : PerState)
          S.SourceText = lineOf(S.Source);
    }
}

} // namespace gestell::driver
