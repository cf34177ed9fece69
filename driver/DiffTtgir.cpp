//===- DiffTtgir.cpp - TTGIR ops per loop, and what changed between builds ===//
//
// A loop is known across builds by the source location of its loop op (the
// user frame of its scf.for; its file by name alone, so builds from other
// folders agree), never by its line in the .ttgir, which any inserted op
// moves. Within a loop an op is known by its name and the
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
#include "gestell/utils/ModuleConversions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

using namespace llvm;

namespace gestell::driver {

namespace {

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
  using SiteKey = std::tuple<uint32_t, uint32_t, uint32_t>;
  DenseMap<SiteKey, uint32_t> SiteIds{{SiteKey(0, 0, 0), 0}};
  std::vector<TtgirSiteInfo> Sites{TtgirSiteInfo()};
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

uint32_t DiffStrings::intern(const TtgirSiteInfo &I) {
  StringTable &T = strings();
  std::lock_guard<std::mutex> G(T.Lock);
  auto [It, New] = T.SiteIds.try_emplace({I.Source, I.Type, I.Cost},
                                         uint32_t(T.Sites.size()));
  if (New)
    T.Sites.push_back(I);
  return It->second;
}

TtgirSiteInfo DiffStrings::site(uint32_t Id) {
  StringTable &T = strings();
  std::lock_guard<std::mutex> G(T.Lock);
  return T.Sites[Id];
}

const TtgirGroupSummary *TtgirSummary::find(const TtgirLoop &L,
                                            uint32_t Key) const {
  for (const TtgirGroupSummary &G : groups(L))
    if (G.Key == Key)
      return &G;
  return nullptr;
}

namespace {
/// An op identity of a module (op name and canonical layouts): its text
/// and short layouts.
struct Identity {
  std::string KeyText;
  uint32_t Layouts = 0;
};

/// What summarizeTtgir looks up per op, each made once per module: ops
/// share locations (#loc aliases), types and layouts (the parser uniques
/// them), so most lookups are by pointer.
class SummaryTables {
public:
  explicit SummaryTables(ModuleConversions &Convs)
      : M(Convs.module()), Convs(Convs) {}

  /// A ttg.convert_layout's cost class ("shared"); none when a layout is
  /// not modelled or the algebra cannot answer.
  uint32_t cost(const Operation &Op) const {
    const Conversion *C = Convs.of(&Op);
    return C && C->Cost ? DiffStrings::intern(costName(C->Cost->Cost)) : 0;
  }
  uint32_t source(const Location *L) {
    L = aliasTarget(L); // ops on one line share the alias's definition
    auto [It, New] = Sources.try_emplace(L, 0);
    if (New)
      It->second = DiffStrings::intern(userSource(L));
    return It->second;
  }
  uint32_t type(const Type *T) {
    if (!T)
      return 0;
    auto [It, New] = Types.try_emplace(T, 0);
    if (New)
      It->second = DiffStrings::intern(shapeOf(T));
    return It->second;
  }
  /// The index in identities() of Op's identity. Distinct attributes with
  /// one canonical text are one identity.
  unsigned identity(const Operation &Op) {
    auto [SrcA, DstA] = layoutPair(Op);
    auto [It, New] = ByParts.try_emplace({Op.Name, SrcA, DstA}, 0);
    if (!New)
      return It->second;
    std::string Key =
        Op.Name.str() + "\n" + canonical(SrcA) + "\n" + canonical(DstA);
    auto [TIt, NewText] = ByText.try_emplace(Key, Identities.size());
    if (NewText) {
      Identity I{std::move(Key), 0};
      if (SrcA && DstA)
        I.Layouts =
            DiffStrings::intern(shortName(SrcA) + " -> " + shortName(DstA));
      else if (SrcA)
        I.Layouts = DiffStrings::intern(shortName(SrcA));
      Identities.push_back(std::move(I));
    }
    return It->second = TIt->second;
  }
  const std::vector<Identity> &identities() const { return Identities; }

private:
  const std::string &shortName(const Attribute *A) {
    auto [It, New] = Short.try_emplace(A);
    if (New)
      It->second = shortLayoutName(*A);
    return It->second;
  }
  /// canonicalLayoutText(), from the layout the conversions parsed.
  const std::string &canonical(const Attribute *A) {
    static const std::string None;
    if (!A)
      return None;
    auto It = Canonical.find(A);
    if (It == Canonical.end()) {
      const Layout *L = Convs.layout(A); // null: not modelled, or invalid
      It = Canonical.try_emplace(A, L ? L->canonicalText() : A->str()).first;
    }
    return It->second;
  }

  const TtgirModule &M;
  ModuleConversions &Convs;
  DenseMap<const Location *, uint32_t> Sources;
  DenseMap<const Type *, uint32_t> Types;
  DenseMap<const Attribute *, std::string> Canonical, Short;
  DenseMap<std::tuple<StringRef, const Attribute *, const Attribute *>,
           unsigned>
      ByParts;
  StringMap<unsigned> ByText;
  std::vector<Identity> Identities;
};

/// Per loop, the sites of each identity (by index), in text order (the
/// identities are ordered by their text when flattened).
using LoopDrafts =
    std::vector<DenseMap<unsigned, SmallVector<TtgirSiteRef, 4>>>;

/// The loop entry of a loop op, its key made unique in the module.
TtgirLoop loopEntry(const Operation &Op, const TtgirLoop &Outer,
                    unsigned &Unlocated, StringMap<unsigned> &KeyUses) {
  std::string Own = userSource(Op.Loc);
  if (Own.empty())
    Own = Op.Name.str() + " #" + std::to_string(++Unlocated);
  std::string Key = Outer.Depth ? Outer.Key + " > " + Own : Own;
  if (unsigned N = ++KeyUses[Key]; N > 1)
    Key += " #" + std::to_string(N);
  return {Key, Op.Name.str(), Op.Line, Op.loopDepth() + 1, 0, 0};
}

/// The drafts into S's arrays, each loop's groups in the order of their
/// identity's text.
void flatten(TtgirSummary &S, const LoopDrafts &Drafts,
             const std::vector<Identity> &Ids) {
  size_t Groups = 0, Sites = 0;
  for (const auto &Loop : Drafts)
    for (const auto &[Id, Ss] : Loop) {
      ++Groups;
      Sites += Ss.size();
    }
  S.Groups.reserve(Groups);
  S.Sites.reserve(Sites);
  for (size_t L = 0; L < Drafts.size(); ++L) {
    std::vector<std::pair<unsigned, const SmallVector<TtgirSiteRef, 4> *>> In;
    for (const auto &[Id, Ss] : Drafts[L])
      In.push_back({Id, &Ss});
    llvm::sort(In, [&](const auto &A, const auto &B) {
      return Ids[A.first].KeyText < Ids[B.first].KeyText;
    });
    S.Loops[L].FirstGroup = S.Groups.size();
    S.Loops[L].NumGroups = In.size();
    for (const auto &[Id, Ss] : In) {
      S.Groups.push_back({DiffStrings::intern(Ids[Id].KeyText), Ids[Id].Layouts,
                          uint32_t(S.Sites.size()), uint32_t(Ss->size())});
      S.Sites.insert(S.Sites.end(), Ss->begin(), Ss->end());
    }
  }
}
} // namespace

TtgirSummary summarizeTtgir(ModuleConversions &Convs) {
  const TtgirModule &M = Convs.module();
  TtgirSummary S;
  SummaryTables Tables(Convs);
  DenseMap<const Operation *, unsigned> LoopIndex;
  StringMap<unsigned> KeyUses;
  unsigned Unlocated = 0;
  S.Loops.push_back({"(outside loops)", "", 0, 0, 0, 0});
  LoopDrafts Drafts(1);
  StringRef Text = M.text();
  for (const Operation *Op : M.ops()) {
    if (Op == M.module() || Op->Name == "tt.func" || Op->Name == "func.func")
      continue;
    const Operation *Loop = Op->enclosingLoop();
    unsigned Into = Loop ? LoopIndex.lookup(Loop) : 0;
    if (Op->isLoop()) {
      LoopIndex[Op] = S.Loops.size();
      TtgirLoop Entry = loopEntry(*Op, S.Loops[Into], Unlocated, KeyUses);
      S.Loops.push_back(std::move(Entry));
      Drafts.emplace_back();
    }
    Drafts[Into][Tables.identity(*Op)].push_back(
        {uint32_t(Op->Text.data() - Text.data()),
         DiffStrings::intern(TtgirSiteInfo{Tables.source(Op->Loc),
                                           Tables.type(siteType(*Op)),
                                           Tables.cost(*Op)})});
  }
  flatten(S, Drafts, Tables.identities());
  return S;
}

TtgirSummary summarizeTtgir(const TtgirModule &M) {
  ModuleConversions Convs(M);
  return summarizeTtgir(Convs);
}

namespace {
/// The summary of a .ttgir that parsed when the states were read (an empty
/// one, should it no longer parse).
TtgirSummary summaryOfFile(StringRef Path) {
  Expected<std::unique_ptr<TtgirModule>> M = parseTtgir(Path);
  if (!M) {
    consumeError(M.takeError());
    return TtgirSummary();
  }
  return summarizeTtgir(**M);
}

/// Each state's summary; one not made at read time is made now, into Made
/// (a state differs).
std::vector<const TtgirSummary *>
madeSummaries(ArrayRef<StateTtgir> States,
              std::map<const TtgirSummary *, TtgirSummary> &Made) {
  std::vector<const TtgirSummary *> Out;
  for (const StateTtgir &St : States) {
    const TtgirSummary *S = St.Summary;
    if (S && !S->Unmade.empty()) {
      auto [It, New] = Made.try_emplace(S);
      if (New)
        It->second = summaryOfFile(S->Unmade);
      S = &It->second;
    }
    Out.push_back(S);
  }
  return Out;
}

/// Sites of A that B has no counterpart for (same source line and type),
/// in A's order.
std::vector<TtgirSiteRef> unmatchedSites(ArrayRef<TtgirSiteRef> A,
                                         ArrayRef<TtgirSiteRef> B) {
  auto sourceAndType = [](const TtgirSiteRef &S) {
    TtgirSiteInfo I = DiffStrings::site(S.Info);
    return std::pair(I.Source, I.Type);
  };
  std::multiset<std::pair<uint32_t, uint32_t>> Other;
  for (const TtgirSiteRef &S : B)
    Other.insert(sourceAndType(S));
  std::vector<TtgirSiteRef> Out;
  for (const TtgirSiteRef &S : A) {
    auto It = Other.find(sourceAndType(S));
    if (It != Other.end())
      Other.erase(It);
    else
      Out.push_back(S);
  }
  return Out;
}

/// A .ttgir read again for the sites a change shows, with its line starts.
struct SiteFile {
  std::unique_ptr<MemoryBuffer> Buffer; ///< null when it no longer reads
  std::vector<uint32_t> LineStarts;
};

/// The TtgirOpSite of a site of the summary of File: its line and column
/// (as the parser counts them) and its op's first line, trimmed and cut at
/// 400 bytes, from File read again (0, 0 and "" if it no longer reads).
TtgirOpSite siteOf(StringRef File, const TtgirSiteRef &R,
                   StringMap<SiteFile> &Files) {
  TtgirOpSite Site;
  Site.File = File.str();
  TtgirSiteInfo I = DiffStrings::site(R.Info);
  Site.Source = DiffStrings::get(I.Source);
  Site.Type = DiffStrings::get(I.Type);
  Site.Cost = DiffStrings::get(I.Cost);
  auto [It, New] = Files.try_emplace(File);
  SiteFile &F = It->second;
  if (New) {
    // openArtifact also reads a stage of a TritonParse trace (its label).
    if (Expected<std::unique_ptr<MemoryBuffer>> B =
            openArtifact(File, Content::Text)) {
      F.Buffer = std::move(*B);
      StringRef T = F.Buffer->getBuffer();
      F.LineStarts.push_back(0);
      for (size_t At = T.find('\n'); At != StringRef::npos;
           At = T.find('\n', At + 1))
        F.LineStarts.push_back(At + 1);
    } else {
      consumeError(B.takeError());
    }
  }
  if (!F.Buffer || R.Offset >= F.Buffer->getBufferSize())
    return Site;
  auto Next = std::upper_bound(F.LineStarts.begin(), F.LineStarts.end(),
                               R.Offset); // 1-based line
  Site.Line = Next - F.LineStarts.begin();
  Site.Column = R.Offset - Next[-1] + 1;
  StringRef Text =
      F.Buffer->getBuffer().substr(R.Offset).split('\n').first.trim();
  Site.Text = Text.take_front(400).str();
  if (Text.size() > 400)
    Site.Text += "...";
  return Site;
}
} // namespace

/// A loop key with every file named by its last component alone
/// ("/src/a/k.py:55:24 > /src/a/k.py:60:9" -> "k.py:55:24 > k.py:60:9"):
/// two builds from checkouts (or Inductor cache folders) in other places
/// still know the loop as one.
static std::string portableLoopKey(StringRef Key) {
  std::string Out;
  while (!Key.empty()) {
    auto [Part, Rest] = Key.split(" > ");
    size_t Slash = Part.find_last_of('/', Part.rfind(".py:"));
    Out += Slash == StringRef::npos ? Part : Part.drop_front(Slash + 1);
    if (!Rest.empty())
      Out += " > ";
    Key = Rest;
  }
  return Out;
}

/// S's loop whose key is Key, portably (portableLoopKey), or null.
static const TtgirLoop *findLoop(const TtgirSummary *S, StringRef Key) {
  if (!S)
    return nullptr;
  std::string Portable = portableLoopKey(Key);
  for (const TtgirLoop &L : S->Loops)
    if (L.Key == Key || portableLoopKey(L.Key) == Portable)
      return &L;
  return nullptr;
}

std::vector<TtgirChange> diffTtgir(ArrayRef<StateTtgir> States) {
  std::vector<TtgirChange> Out;
  if (States.empty() || !States[0].Summary)
    return Out;
  // A kernel a build left untouched shares its base kernel's summary
  // (DiffRead.cpp): no count differs.
  if (all_of(States.drop_front(), [&](const StateTtgir &S) {
        return !S.Summary || S.Summary == States[0].Summary;
      }))
    return Out;
  const unsigned N = States.size();
  std::map<const TtgirSummary *, TtgirSummary> Made;
  std::vector<const TtgirSummary *> PerState = madeSummaries(States, Made);
  // Loop keys in order of first appearance: the base's, then new ones.
  std::vector<std::string> Keys;
  StringMap<bool> SeenKey;
  for (const TtgirSummary *S : PerState)
    if (S)
      for (const TtgirLoop &L : S->Loops)
        if (SeenKey.try_emplace(portableLoopKey(L.Key), true).second)
          Keys.push_back(L.Key);
  StringMap<SiteFile> Files;

  for (const std::string &Key : Keys) {
    std::vector<const TtgirLoop *> Loops(N);
    std::map<std::string, uint32_t> Groups; // by the identity's text
    for (unsigned I = 0; I < N; ++I) {
      Loops[I] = findLoop(PerState[I], Key);
      if (Loops[I])
        for (const TtgirGroupSummary &G : PerState[I]->groups(*Loops[I]))
          Groups.try_emplace(DiffStrings::get(G.Key), G.Key);
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
        const TtgirGroupSummary *G = PerState[I]->find(*Loops[I], GK);
        if (!G)
          continue;
        Gs[I] = G;
        C.Counts[I] = G->NumSites;
        if (C.Group.Op.empty()) {
          // The identity's text: op name, source layout, destination.
          auto [Op, Layouts] = StringRef(GKText).split('\n');
          auto [Src, Dst] = Layouts.split('\n');
          C.Group.Op = Op.str();
          C.Group.Layouts = DiffStrings::get(G->Layouts);
          C.Group.Src = Src.str();
          C.Group.Dst = Dst.str();
        }
      }
      bool Changed = false;
      std::set<uint32_t> BaseShown; // by offset
      for (unsigned I = 1; I < N; ++I) {
        if (!C.Counts[I] || *C.Counts[I] == *C.Counts[0])
          continue;
        Changed = true;
        ArrayRef<TtgirSiteRef> Here, There;
        if (Gs[I])
          Here = PerState[I]->sites(*Gs[I]);
        if (Gs[0])
          There = PerState[0]->sites(*Gs[0]);
        if (*C.Counts[I] > *C.Counts[0]) {
          std::vector<TtgirSiteRef> More = unmatchedSites(Here, There);
          if (More.empty())
            More.assign(Here.begin(), Here.end());
          for (const TtgirSiteRef &R : More)
            C.Sites[I].push_back(siteOf(States[I].File, R, Files));
        } else {
          std::vector<TtgirSiteRef> Lost = unmatchedSites(There, Here);
          if (Lost.empty())
            Lost.assign(There.begin(), There.end());
          for (const TtgirSiteRef &R : Lost)
            if (BaseShown.insert(R.Offset).second)
              C.Sites[0].push_back(siteOf(States[0].File, R, Files));
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
