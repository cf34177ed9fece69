//===- StagingExplosionCheck.cpp - nvidia-staging-explosion ---------------===//
#include "StagingExplosionCheck.h"
#include "Opcodes.h"

#include "gestell/StageFamilies.h"
#include "gestell/utils/KernelCode.h"
#include "gestell/utils/Locate.h"
#include "gestell/utils/ModuleConversions.h"
#include "gestell/utils/OptionalStages.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <set>

using namespace llvm;

namespace gestell::nvidia {

CheckInfo StagingExplosionCheck::info() {
  CheckInfo I;
  I.Id = "nvidia-staging-explosion";
  I.Summary = "The k-loop moves register fragments through shared memory "
              "for a layout conversion it does not need, or far more than in "
              "the baseline build";
  I.Description =
      "Alone: the innermost loop that holds the kernel's MMAs (the k-loop, "
      "not a persistent kernel's tile loop) contains, by the SASS line "
      "info, the shared-memory traffic of a ttg.convert_layout that "
      "triton-redundant-layout-conversion calls avoidable and that goes "
      "through shared memory: a warning, evidence of that finding (they "
      "merge). A needed conversion with that cost is a remark. With "
      "--baseline, the kernel fires when staging (LDSM, STSM, LDS), CTA "
      "barriers or shuffles in loops grew by GrowthFactor and by MinGrowth "
      "executed instructions while the tensor-core count held.";
  I.Category = "performance";
  I.Precision = "high"; // docs/checks/<id>.md, "On real code"
  I.Tags = {"layout", "shared-memory"};
  I.DefaultLevel = Level::Warning;
  I.Stages = {Stage::SASS};
  return I;
}

StagingExplosionCheck::StagingExplosionCheck(StringRef Name,
                                             CheckContext &Context)
    : Check(Name, Context), GrowthFactor(Options.get("GrowthFactor", 1.5)),
      MinGrowth(Options.get("MinGrowth", 8u)),
      TensorTolerance(Options.get("TensorTolerance", 0.25)),
      Remarks(Options.get("Remarks", true)) {}

void StagingExplosionCheck::storeOptions(OptionMap &Opts) const {
  Options.store(Opts, "Remarks", Remarks);
  Options.store(Opts, "GrowthFactor", GrowthFactor);
  Options.store(Opts, "MinGrowth", MinGrowth);
  Options.store(Opts, "TensorTolerance", TensorTolerance);
}

namespace {

enum Metric : unsigned { Staging, Barriers, Shuffles, NumMetrics };

constexpr const char *MetricId[NumMetrics] = {"staging", "barriers",
                                              "shuffles"};
constexpr const char *SassWhat[NumMetrics] = {
    "staging instructions (LDSM, STSM, LDS)", "CTA barriers (BAR)",
    "warp shuffles (SHFL)"};
constexpr const char *PtxWhat[NumMetrics] = {"ldmatrix, stmatrix and ld.shared",
                                             "bar and barrier", "shfl"};

/// The metric an opcode counts for; InStaging: whether it is in the
/// staging family.
std::optional<Metric> metricOf(Isa I, StringRef Opcode, bool InStaging) {
  if (I == Isa::SASS) {
    if (InStaging || isSassSharedLoad(Opcode))
      return Staging;
    if (isSassBarrier(Opcode))
      return Barriers;
    if (isSassShuffle(Opcode))
      return Shuffles;
    return std::nullopt;
  }
  if (InStaging || isPtxSharedLoad(Opcode))
    return Staging;
  if (isPtxBarrier(Opcode))
    return Barriers;
  if (isPtxShuffle(Opcode))
    return Shuffles;
  return std::nullopt;
}

std::optional<Metric> metricOf(Isa I, StringRef Opcode) {
  return metricOf(I, Opcode, inFamily(I, Opcode, "staging"));
}

/// What one span of code (a loop, or every loop of a function) holds.
struct Counts {
  unsigned Of[NumMetrics] = {};
  unsigned AsyncMma = 0;       ///< warp-group and tcgen05 MMA (SASS only)
  unsigned Tensor = 0;         ///< the tensor family
  unsigned Tmem = 0;           ///< the tmem family
  StringMap<unsigned> Opcodes; ///< the metrics' opcodes
};

/// Families: of the module F belongs to (KernelView::families).
template <typename FunctionT>
Counts countOf(const FunctionT &F, ArrayRef<uint32_t> Insts, Isa I,
               const StageFamilies &Families) {
  unsigned Staging = Families.familyIndex("staging"),
           Tensor = Families.familyIndex("tensor"),
           Tmem = Families.familyIndex("tmem");
  Counts C;
  for (uint32_t Index : Insts) {
    const auto &Inst = F.Instructions[Index];
    StringRef Op = Inst.Opcode;
    if (std::optional<Metric> M = metricOf(I, Op, Families.in(Inst, Staging))) {
      ++C.Of[*M];
      ++C.Opcodes[Op];
    } else if (Families.in(Inst, Tensor)) {
      ++C.Tensor;
      if (I == Isa::SASS && isSassAsyncMma(Op))
        ++C.AsyncMma;
    } else if (Families.in(Inst, Tmem)) {
      ++C.Tmem;
    }
  }
  return C;
}

/// Every instruction of F inside some loop.
template <typename FunctionT>
std::vector<uint32_t> inLoops(const FunctionT &F) {
  std::vector<uint32_t> Out;
  for (uint32_t I = 0; I < F.Instructions.size(); ++I)
    if (F.CF.inLoop(I))
      Out.push_back(I);
  return Out;
}

/// Where to point: the first instruction of Insts with the opcode that best
/// shows what fired. Staging and shuffles come before barriers (a barrier
/// says less about where the traffic is); among their opcodes, the one that
/// grew most against Base ((head + 1) / (base + 1)), or without a baseline
/// the most frequent one. NoIndex when no opcode of a fired metric is there.
template <typename FunctionT>
uint32_t pointAt(const FunctionT &F, ArrayRef<uint32_t> Insts, Isa I,
                 const bool (&Fired)[NumMetrics], const Counts &Head,
                 const Counts *Base) {
  StringRef Best;
  std::pair<bool, double> BestScore{false, -1};
  for (const auto &E : Head.Opcodes) {
    std::optional<Metric> M = metricOf(I, E.getKey());
    if (!M || !Fired[*M])
      continue;
    double Score =
        Base ? double(E.getValue() + 1) / (Base->Opcodes.lookup(E.getKey()) + 1)
             : double(E.getValue());
    std::pair<bool, double> Key{*M != Barriers, Score};
    if (Key > BestScore || (Key == BestScore && E.getKey() < Best)) {
      Best = E.getKey();
      BestScore = Key;
    }
  }
  for (uint32_t Index : Insts)
    if (F.Instructions[Index].Opcode == Best)
      return Index;
  return NoIndex;
}

/// A ttg.convert_layout inside an scf.for whose Python line is Src's.
const Operation *conversionAt(const TtgirModule &M, const DiagLoc &Src) {
  for (const Operation *Op : M.ops()) {
    if (Op->Name != "ttg.convert_layout" || Op->loopDepth() == 0)
      continue;
    std::optional<DiagLoc> L = pythonSource(M, *Op);
    if (L && L->File == Src.File && L->Line == Src.Line)
      return Op;
  }
  return nullptr;
}

std::string opcodeList(const Counts &C, const bool (&Fired)[NumMetrics],
                       Isa I) {
  std::set<std::string> Ops;
  for (const auto &E : C.Opcodes)
    if (std::optional<Metric> M = metricOf(I, E.getKey()); M && Fired[*M])
      Ops.insert(E.getKey().str());
  std::string Out;
  for (const std::string &Op : Ops)
    Out += (Out.empty() ? "" : ", ") + Op;
  return Out;
}

/// Innermost loops that hold an asynchronous MMA (no loop inside them
/// does): the k-loops, not a persistent kernel's tile loop.
std::vector<uint32_t> mmaLoops(const SassFunction &F) {
  std::set<uint32_t> Loops;
  for (uint32_t I = 0; I < F.Instructions.size(); ++I)
    if (isSassAsyncMma(F.Instructions[I].Opcode))
      if (uint32_t L = F.CF.loopOf(I); L != NoIndex)
        Loops.insert(L);
  // A loop holding another loop of the set is not innermost.
  std::vector<uint32_t> Out;
  for (uint32_t L : Loops) {
    bool Outer = false;
    for (uint32_t O : Loops)
      for (uint32_t P = F.CF.Loops[O].Parent; P != NoIndex && !Outer;
           P = F.CF.Loops[P].Parent)
        Outer = P == L;
    if (!Outer)
      Out.push_back(L);
  }
  return Out;
}

/// Whether Op runs on every iteration of its innermost loop: not inside an
/// scf.if of the loop body (a persistent kernel's flattened tile loop runs
/// its epilogue behind such a branch, once per tile).
bool everyIteration(const Operation &Op) {
  for (const Operation *P = Op.parentOp(); P && !P->isLoop(); P = P->parentOp())
    if (P->Name == "scf.if")
      return false;
  return true;
}

/// Whether a SASS instruction's line info names File:Line (any frame of
/// its inlining chain: Triton inlines @triton.jit helpers).
bool atPythonLine(const SassModule &M, const SassInstruction &I, StringRef File,
                  uint32_t Line) {
  for (uint32_t F = I.Frame; F != NoIndex && F < M.Frames.size();
       F = M.Frames[F].InlinedAt)
    if (M.Frames[F].Line == Line && M.Frames[F].File == File)
      return true;
  return false;
}

/// The redundancy a conversion belongs to: its own, or for the second
/// conversion of a round trip or detour, the first one's; null when it is
/// needed (or only equivalent to another).
const RedundantConversion *redundancyOf(ArrayRef<RedundantConversion> All,
                                        const Operation *Op) {
  for (const RedundantConversion &R : All) {
    if (R.Kind == Redundancy::Equivalent)
      continue;
    if (R.C->Op == Op ||
        any_of(R.Next, [&](const Conversion *N) { return N->Op == Op; }))
      return &R;
  }
  return nullptr;
}

/// The conversions the k-loop pays for every iteration: known to go through
/// shared memory, in a loop, on every iteration, and not an epilogue's
/// conversion for its store (coalescing is once-per-tile work).
bool inLoopBody(const Conversion &C) {
  if (!C.known() || C.Cost->Cost != ConversionCost::Shared ||
      C.Op->loopDepth() == 0 || !everyIteration(*C.Op))
    return false;
  ElementwiseFlow Flow = followElementwise(*C.Op->Results[0]);
  return !any_of(Flow.Exits, isMemoryStore);
}
} // namespace

struct StagingExplosionCheck::LoopTraffic {
  const Kernel &K;
  const SassModule &Sass;
  const SassFunction &SF;
  const TtgirModule &Ttgir;
  uint32_t Loop;
  const Conversion &C;
  const RedundantConversion *R; ///< null: the conversion is needed
  const Operation &Cause;       ///< R's first conversion, else C's
  DiagLoc Py;                   ///< the conversion's Python line
  bool Gluon;
  Counts AtLine;            ///< shared-memory instructions and barriers at Py
  uint32_t First = NoIndex; ///< the first of them
  unsigned Mma = 0;         ///< asynchronous MMAs in the loop

  /// Counts the loop's instructions that carry the conversion's line: its
  /// lowering's shared-memory accesses (fragment staging, LDSM/STSM, or a
  /// plain shared load or store) and CTA barriers.
  void count(const StageFamilies &Families) {
    unsigned StagingFamily = Families.familyIndex("staging"),
             SharedFamily = Families.familyIndex("shared");
    for (uint32_t I : loopInstructions(SF.CF, Loop)) {
      const SassInstruction &X = SF.Instructions[I];
      if (isSassAsyncMma(X.Opcode))
        ++Mma;
      if (!atPythonLine(Sass, X, Py.File, Py.Line))
        continue;
      if (Families.in(X, StagingFamily) || Families.in(X, SharedFamily)) {
        ++AtLine.Of[Staging];
        ++AtLine.Opcodes[X.Opcode];
        if (First == NoIndex)
          First = I;
      } else if (isSassBarrier(X.Opcode)) {
        ++AtLine.Of[Barriers];
      }
    }
  }
};

Error StagingExplosionCheck::alone(CheckInput &In, const SassModule &Sass,
                                   const SassFunction &SF) {
  // The conversions come from the TTGIR; without one there is nothing to
  // tie the SASS traffic to (load pipelines, epilogues and TMA-filled
  // buffers use shared memory too), so nothing is reported. Looked at
  // last: the MMA loops of the SASS first, then (unless another check has
  // parsed it) whether the TTGIR's text names a conversion at all.
  std::vector<uint32_t> KLoops = mmaLoops(SF);
  if (KLoops.empty())
    return Error::success();
  const TtgirModule *Ttgir =
      optionalTtgirMentioning(In.Kernel, {"ttg.convert_layout"});
  if (!Ttgir)
    return Error::success();
  Expected<ModuleConversions &> Shared = In.Kernel.conversions();
  if (!Shared)
    return Shared.takeError();
  ModuleConversions &Convs = *Shared;
  const StageFamilies &Families = In.Kernel.families(Sass);
  std::set<const Operation *> Reported; // causes already reported
  bool Gluon = compiledFromGluon(In.Kernel.kernel());
  for (const Conversion &C : Convs.all()) {
    if (!inLoopBody(C))
      continue;
    std::optional<DiagLoc> Py = pythonSource(*Ttgir, *C.Op);
    if (!Py)
      continue;
    // The conversion's shared-memory traffic in a k-loop, by line info.
    for (uint32_t L : KLoops) {
      const RedundantConversion *R = redundancyOf(Convs.redundant(), C.Op);
      LoopTraffic T{In.Kernel.kernel(),    Sass, SF,    *Ttgir, L, C, R,
                    R ? *R->C->Op : *C.Op, *Py,  Gluon, {}};
      T.count(Families);
      if (T.First == NoIndex)
        continue;
      if ((R || Remarks) && Reported.insert(&T.Cause).second)
        reportLoopTraffic(T);
      break; // one finding per conversion
    }
  }
  return Error::success();
}

void StagingExplosionCheck::reportLoopTraffic(const LoopTraffic &T) {
  const RedundantConversion *R = T.R;
  const Conversion &C = T.C;
  const TtgirModule &Ttgir = T.Ttgir;
  unsigned N = T.AtLine.Of[Staging];
  auto D =
      diag(locate(T.Sass, T.SF.Instructions[T.First]),
           R ? "the k-loop of kernel '" + T.K.Name +
                   "' moves fragments through shared memory for a layout "
                   "conversion it does not need (" +
                   redundancyName(R->Kind) + "): " + Twine(N) +
                   " shared-memory instructions at its Python line"
             : "the k-loop of kernel '" + T.K.Name +
                   "' moves fragments through shared memory for a layout "
                   "conversion: " +
                   Twine(N) + " shared-memory instructions at its Python line",
           R ? Level::Warning : Level::Remark);
  D.source(T.Py);
  D.cause(locate(Ttgir, T.Cause));
  D.related(locate(Ttgir, *C.Op), "the ttg.convert_layout " + C.SrcText +
                                      " -> " + C.DstText + " on " +
                                      C.tensorText());
  if (&T.Cause != C.Op)
    D.related(locate(Ttgir, T.Cause),
              "the conversion this one undoes or continues");
  std::set<std::string> Ops;
  for (const auto &E : T.AtLine.Opcodes)
    Ops.insert(E.getKey().str());
  D.note(Twine(N) + " shared-memory instructions (" + join(Ops, ", ") +
         ") and " + Twine(T.AtLine.Of[Barriers]) +
         " CTA barriers in the k-loop carry the conversion's line, beside " +
         Twine(T.Mma) + " warp-group / tcgen05 MMAs: paid every iteration");
  if (std::optional<DiagLoc> LoopSrc = loopSource(T.Sass, T.SF, T.Loop, &Ttgir))
    D.note(*LoopSrc, "in the loop at this Python line");
  if (R)
    D.note("triton-redundant-layout-conversion: " + redundancyName(R->Kind) +
           ", cost " + costName(R->Worst));
  else
    D.note("the conversion is needed (no other layout serves both the "
           "producer and the consumer here): at most a remark");
  if (T.Gluon)
    D.hint("Gluon kernel (the author's gl.convert_layout)",
           "the kernel converts this tensor in its k-loop with "
           "gl.convert_layout at the Python line: choose the producer's "
           "or the consumer's layout so that no conversion is needed");
  else
    D.hint("TritonGPU layout conversion (ttg.convert_layout in the loop)",
           "a pass placed a convert_layout in the k-loop: find it "
           "(remove-layout-conversions, the MMA or TMEM operand "
           "lowering) and make producer and consumer agree on the "
           "layout");
  D.context(R ? "k-loop-redundant" : "k-loop-needed");
  D.context(C.SrcText).context(C.DstText);
  for (const std::string &Op : Ops)
    D.context(Op);
}

struct StagingExplosionCheck::Growth {
  Counts Head;                 ///< the kernel's counts in all its loops
  std::optional<Counts> Base;  ///< the baseline's
  bool Fired[NumMetrics] = {}; ///< the metrics that grew
  bool Any = false;            ///< some metric grew
  SmallVector<std::string, 4> Notes;
  uint32_t At = NoIndex; ///< the instruction to point at
};

Error StagingExplosionCheck::check(CheckInput &In) {
  const Kernel &K = In.Kernel.kernel();
  Expected<const SassModule &> Sass = In.Kernel.sass();
  if (!Sass)
    return Sass.takeError();
  const SassFunction *SF = kernelFunction(*Sass, K.Name);
  if (!SF)
    return Error::success();
  // The baseline's SASS, when there is one to compare with.
  const SassModule *BaseSass =
      In.Baseline ? optionalSass(*In.Baseline) : nullptr;
  const SassFunction *BaseSF =
      BaseSass ? kernelFunction(*BaseSass, In.Baseline->kernel().Name)
               : nullptr;
  if (!BaseSF)
    return alone(In, *Sass, *SF);
  Growth G = measureGrowth(In, *Sass, *SF, *BaseSass, *BaseSF);
  if (!G.Any)
    return alone(In, *Sass, *SF);
  if (G.At != NoIndex)
    reportGrowth(In, *Sass, *SF, G);
  return Error::success();
}

StagingExplosionCheck::Growth StagingExplosionCheck::measureGrowth(
    CheckInput &In, const SassModule &Sass, const SassFunction &SF,
    const SassModule &BaseSass, const SassFunction &BaseSF) const {
  Growth G;
  std::vector<uint32_t> HeadLoops = inLoops(SF);
  G.Head = countOf(SF, HeadLoops, Isa::SASS, In.Kernel.families(Sass));
  G.Base = countOf(BaseSF, inLoops(BaseSF), Isa::SASS,
                   In.Baseline->families(BaseSass));
  const Counts &Head = G.Head, &Base = *G.Base;
  double Moved = std::fabs(double(Head.Tensor) - double(Base.Tensor));
  bool Holds =
      Base.Tensor ? Moved <= TensorTolerance * Base.Tensor : Head.Tensor == 0;
  if (!Holds)
    return G;
  for (unsigned M = 0; M < NumMetrics; ++M) {
    unsigned H = Head.Of[M], B = Base.Of[M];
    double Threshold = std::max(GrowthFactor * B, double(B + MinGrowth));
    if (H >= Threshold) {
      G.Fired[M] = G.Any = true;
      G.Notes.push_back(std::to_string(H) + " " + SassWhat[M] +
                        " in loops (baseline " + std::to_string(B) +
                        ", threshold " + formatRatio(std::ceil(Threshold)) +
                        ")");
    }
  }
  if (!G.Any)
    return G;
  G.Notes.push_back(std::to_string(Head.Tensor) +
                    " tensor-core instructions in loops (baseline " +
                    std::to_string(Base.Tensor) + ", holds within " +
                    formatRatio(TensorTolerance * 100) + "%)");
  if (Head.Tmem || Base.Tmem)
    G.Notes.push_back(std::to_string(Head.Tmem) +
                      " TMEM instructions in loops (baseline " +
                      std::to_string(Base.Tmem) + ")");
  G.At = pointAt(SF, HeadLoops, Isa::SASS, G.Fired, Head, &Base);
  return G;
}

namespace {
/// The PTX as related evidence: the same metrics before ptxas, against the
/// baseline's PTX when it has one.
void notePtxTraffic(DiagnosticBuilder &D, CheckInput &In,
                    const bool (&Fired)[NumMetrics]) {
  const PtxModule *Ptx = optionalPtx(In.Kernel);
  const PtxFunction *PF =
      Ptx ? kernelFunction(*Ptx, In.Kernel.kernel().Name) : nullptr;
  if (!PF)
    return;
  std::vector<uint32_t> PtxLoops = inLoops(*PF);
  Counts PH = countOf(*PF, PtxLoops, Isa::PTX, In.Kernel.families(*Ptx));
  std::optional<Counts> PB;
  if (In.Baseline)
    if (const PtxModule *BP = optionalPtx(*In.Baseline))
      if (const PtxFunction *BF =
              kernelFunction(*BP, In.Baseline->kernel().Name))
        PB = countOf(*BF, inLoops(*BF), Isa::PTX, In.Baseline->families(*BP));
  uint32_t PAt =
      pointAt(*PF, PtxLoops, Isa::PTX, Fired, PH, PB ? &*PB : nullptr);
  if (PAt == NoIndex)
    return;
  std::string Msg = "the PTX has";
  bool First = true;
  for (unsigned M = 0; M < NumMetrics; ++M) {
    if (!Fired[M])
      continue;
    Msg +=
        (First ? " " : ", ") + std::to_string(PH.Of[M]) + " " + PtxWhat[M] +
        (PB ? " (baseline " + std::to_string(PB->Of[M]) + ")" : std::string());
    First = false;
  }
  Msg += " in loops";
  D.related(locate(*Ptx, PF->Instructions[PAt]), "the same traffic in the PTX");
  D.note(locate(*Ptx, PF->Instructions[PAt]), Msg);
}
} // namespace

void StagingExplosionCheck::reportGrowth(CheckInput &In, const SassModule &Sass,
                                         const SassFunction &SF,
                                         const Growth &G) {
  const SassInstruction &P = SF.Instructions[G.At];
  SmallVector<std::string, 3> Names;
  for (unsigned M = 0; M < NumMetrics; ++M)
    if (G.Fired[M])
      Names.push_back(MetricId[M]);
  auto D =
      diag(locate(Sass, P), join(Names, " and ") + " in loops of kernel '" +
                                In.Kernel.kernel().Name +
                                "' grew against the baseline while "
                                "the tensor-core work held");
  std::optional<DiagLoc> Src = pythonSource(Sass, P);
  D.source(Src);
  for (const std::string &N : G.Notes)
    D.note(N);
  // The TTGIR, when present, names the loop's `for` line and the layout
  // conversion at the primary instruction's Python line.
  const TtgirModule *Ttgir = optionalTtgir(In.Kernel);
  if (uint32_t L = outermostLoopOf(SF.CF, G.At); L != NoIndex)
    if (std::optional<DiagLoc> LoopSrc = loopSource(Sass, SF, L, Ttgir))
      D.note(*LoopSrc, "in the loop at this Python line");
  notePtxTraffic(D, In, G.Fired);
  if (Src && Ttgir)
    if (const Operation *Cvt = conversionAt(*Ttgir, *Src)) {
      D.related(locate(*Ttgir, *Cvt),
                "a ttg.convert_layout in the loop at the same Python line");
      D.cause(locate(*Ttgir, *Cvt));
    }

  D.hint("TritonGPU layout conversion (ttg.convert_layout in the loop)",
         "fragments go through shared memory or between lanes in every "
         "iteration: look for a ttg.convert_layout inside the scf.for, "
         "usually one a pass added (remove-layout-conversions, the MMA or "
         "TMEM operand lowering), and make producer and consumer agree on "
         "the layout (triton-redundant-layout-conversion names redundant "
         "ones)");
  D.context("growth");
  for (const std::string &N : Names)
    D.context(N);
  D.context(opcodeList(G.Head, G.Fired, Isa::SASS));
}

} // namespace gestell::nvidia
