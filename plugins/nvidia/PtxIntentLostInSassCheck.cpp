//===- PtxIntentLostInSassCheck.cpp - nvidia-ptx-intent-lost-in-sass ------===//
#include "PtxIntentLostInSassCheck.h"
#include "Opcodes.h"
#include "PtxasRun.h"
#include "WgmmaSyncCause.h"

#include "gestell/StageFamilies.h"
#include "gestell/utils/KernelCode.h"
#include "gestell/utils/Locate.h"
#include "gestell/utils/OptionalStages.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <set>

using namespace llvm;

namespace gestell::nvidia {

CheckInfo PtxIntentLostInSassCheck::info() {
  CheckInfo I;
  I.Id = "nvidia-ptx-intent-lost-in-sass";
  I.Summary = "The SASS does not deliver what the PTX asked for: a serialized "
              "wgmma pipeline, an ignored setmaxnreg, or tensor-core, TMEM "
              "or TMA instructions that ptxas dropped";
  I.Description =
      "Compares what the PTX asks for with what ptxas made of it. wgmma "
      "serialized: in loops the PTX keeps several wgmma.mma_async in flight "
      "per wgmma.wait_group, but the SASS waits for every warp-group MMA "
      "(WARPGROUP.DEPBAR.LE gsb0, 0x0 after nearly every HGMMA). setmaxnreg "
      "ignored: setmaxnreg in the PTX, no USETMAXREG in the SASS. Dropped "
      "instructions: a family of the instruction table (tensor, tmem, tma) "
      "with far fewer SASS than PTX instructions. With the option Ptxas the "
      "check re-runs `ptxas -v` on the PTX and attaches its C75xx messages.";
  I.Category = "performance";
  I.Precision = "very-high"; // docs/checks/<id>.md, "On real code"
  I.ProgramOptions = {"Ptxas"};
  I.Tags = {"ptxas", "wgmma"};
  I.DefaultLevel = Level::Warning;
  // The SASS is read when there is one; without it only the ptxas re-run
  // (option Ptxas) has something to say.
  I.Stages = {Stage::PTX};
  return I;
}

PtxIntentLostInSassCheck::PtxIntentLostInSassCheck(StringRef Name,
                                                   CheckContext &Context)
    : Check(Name, Context),
      SerializedWaitsPerMma(Options.get("SerializedWaitsPerMma", 0.75)),
      MinMma(Options.get("MinMma", 1u)), Mappings(Options.get("Mappings", "*")),
      MinSassPerPtx(Options.get("MinSassPerPtx", 0.5)),
      Ptxas(Options.get("Ptxas", "")),
      PtxasTimeout(Options.get("PtxasTimeout", 300u)),
      Remarks(Options.get("Remarks", true)) {}

void PtxIntentLostInSassCheck::storeOptions(OptionMap &Opts) const {
  Options.store(Opts, "SerializedWaitsPerMma", SerializedWaitsPerMma);
  Options.store(Opts, "Remarks", Remarks);
  Options.store(Opts, "MinMma", MinMma);
  Options.store(Opts, "Mappings", Mappings);
  Options.store(Opts, "MinSassPerPtx", MinSassPerPtx);
  Options.store(Opts, "Ptxas", Ptxas);
  Options.store(Opts, "PtxasTimeout", PtxasTimeout);
}

namespace {

/// wgmma issue and wait points of the PTX inside loops.
struct PtxWgmma {
  unsigned Mma = 0, Waits = 0;
  /// `wgmma.wait_group 0` right after warp-group MMAs: the PTX itself lets
  /// nothing stay in flight.
  unsigned FullWaits = 0;
  const PtxInstruction *FirstMma = nullptr, *FirstWait = nullptr;
  const PtxInstruction *FirstFullWait = nullptr;
};

PtxWgmma countPtxWgmma(const PtxFunction &F) {
  PtxWgmma W;
  bool Pending = false;
  for (uint32_t I = 0; I < F.Instructions.size(); ++I) {
    if (!F.CF.inLoop(I))
      continue;
    const PtxInstruction &Inst = F.Instructions[I];
    if (Inst.Opcode.starts_with("wgmma.mma_async")) {
      ++W.Mma;
      Pending = true;
      if (!W.FirstMma)
        W.FirstMma = &Inst;
    } else if (Inst.Opcode.starts_with("wgmma.wait_group")) {
      ++W.Waits;
      if (!W.FirstWait)
        W.FirstWait = &Inst;
      if (Pending && Inst.Operands.trim() == "0") {
        ++W.FullWaits;
        if (!W.FirstFullWait)
          W.FirstFullWait = &Inst;
      }
      Pending = false;
    }
  }
  return W;
}

/// The TTGIR op that made the PTX wait for every MMA: a
/// `ttng.warp_group_dot_wait {pendings = 0}` inside a loop, or null.
const Operation *fullDotWait(const TtgirModule *M) {
  if (!M)
    return nullptr;
  for (const Operation *Op : M->ops())
    if (Op->Name == "ttng.warp_group_dot_wait" && Op->loopDepth() > 0)
      if (std::optional<int64_t> N =
              Op->attr("pendings")
                  ? std::optional<int64_t>(Op->attr("pendings")->Int)
                  : std::nullopt;
          N && *N == 0)
        return Op;
  return nullptr;
}

/// Warp-group MMAs and full waits of the SASS inside loops.
struct SassWgmma {
  unsigned Mma = 0, Waits = 0;
  const SassInstruction *FirstMma = nullptr;
  /// The first full wait that follows a warp-group MMA in a loop: where the
  /// pipeline stops.
  const SassInstruction *FirstSerializing = nullptr;
  std::set<std::string> Opcodes;
};

SassWgmma countSassWgmma(const SassFunction &F) {
  SassWgmma W;
  bool Pending = false;
  for (uint32_t I = 0; I < F.Instructions.size(); ++I) {
    if (!F.CF.inLoop(I))
      continue;
    const SassInstruction &Inst = F.Instructions[I];
    if (isSassWarpgroupMma(Inst.Opcode)) {
      ++W.Mma;
      Pending = true;
      W.Opcodes.insert(Inst.Opcode.str());
      if (!W.FirstMma)
        W.FirstMma = &Inst;
    } else if (isSassFullWarpgroupWait(Inst)) {
      ++W.Waits;
      if (Pending && !W.FirstSerializing)
        W.FirstSerializing = &Inst;
      Pending = false;
    }
  }
  return W;
}

std::string ptxasNote(const PtxasMessage &M) {
  return "ptxas: (" + M.Code + ") " + M.Text;
}

} // namespace

/// What the checks of one kernel read.
struct PtxIntentLostInSassCheck::Code {
  const Kernel &K;
  const PtxModule &Ptx;
  const PtxFunction &PF;
  const SassModule *Sass; ///< null when the kernel has no SASS
  const SassFunction *SF; ///< null when the kernel has no SASS
  /// Every instruction's family and mapping (KernelView::families).
  const StageFamilies &PtxFamilies;
  const StageFamilies *SassFamilies; ///< null when the kernel has no SASS
};

/// ptxas's C75xx messages, each attached to one result at most.
struct PtxIntentLostInSassCheck::PtxasNotes {
  std::vector<PtxasMessage> Messages;
  std::vector<bool> Used;

  void attach(DiagnosticBuilder &D, StringRef Topic) {
    for (size_t I = 0; I < Messages.size(); ++I)
      if (!Used[I] && Messages[I].Topic == Topic) {
        D.note(ptxasNote(Messages[I]));
        Used[I] = true;
      }
  }
};

Error PtxIntentLostInSassCheck::check(CheckInput &In) {
  const Kernel &K = In.Kernel.kernel();
  // The SASS (or ptxas's notes) first: without either there is nothing to
  // compare the PTX with, and the PTX is not read.
  const SassModule *Sass = optionalSass(In.Kernel);
  const SassFunction *SF = Sass ? kernelFunction(*Sass, K.Name) : nullptr;
  if (!SF && Ptxas.empty())
    return Error::success();
  Expected<const PtxModule &> Ptx = In.Kernel.ptx();
  if (!Ptx)
    return Ptx.takeError();
  const PtxFunction *PF = kernelFunction(*Ptx, K.Name);
  if (!PF)
    return Error::success();
  Code C{K,
         *Ptx,
         *PF,
         Sass,
         SF,
         In.Kernel.families(*Ptx),
         Sass ? &In.Kernel.families(*Sass) : nullptr};

  PtxasNotes Notes;
  if (!Ptxas.empty()) {
    Expected<std::string> Tool = findPtxas(Ptxas);
    if (!Tool)
      return Tool.takeError();
    StringRef Arch = Ptx->Target.split(',').first.trim();
    Expected<std::string> Out = runPtxas(*Tool, Ptx->Path, Arch, PtxasTimeout);
    if (!Out)
      return Out.takeError();
    Notes.Messages = parsePtxasMessages(*Out);
    Notes.Used.assign(Notes.Messages.size(), false);
  }
  if (SF) {
    checkWgmma(C, Notes, In.Kernel);
    checkSetmaxnreg(C, Notes);
    if (Error E = checkMappings(C))
      return E;
  }
  reportPtxasAlone(C, Notes);
  return Error::success();
}

void PtxIntentLostInSassCheck::checkWgmma(const Code &C, PtxasNotes &Notes,
                                          KernelView &V) {
  PtxWgmma PW = countPtxWgmma(C.PF);
  SassWgmma SW = countSassWgmma(*C.SF);
  double WaitsPerMma = SW.Mma ? double(SW.Waits) / SW.Mma : 0;
  double PtxPerWait = PW.Waits ? double(PW.Mma) / PW.Waits : double(PW.Mma);
  // Serialized: the SASS waits with 0x0 (nothing in flight) after the
  // loop's warp-group MMAs; a wait of 0x1..N keeps MMAs in flight.
  bool SassSerialized = SW.Mma >= MinMma && PW.Mma >= MinMma &&
                        SW.FirstSerializing &&
                        WaitsPerMma >= SerializedWaitsPerMma;
  if (!SassSerialized)
    return;
  // When the PTX itself waits for every MMA, ptxas serialized nothing.
  double PtxFullPerMma = PW.Mma ? double(PW.FullWaits) / PW.Mma : 0;
  if (PtxFullPerMma >= SerializedWaitsPerMma) {
    reportPtxWaitsItself(C, *PW.FirstFullWait, PW.FullWaits, PW.Mma, V);
    return;
  }
  {
    const SassInstruction &At = *SW.FirstSerializing;
    auto D = diag(locate(*C.Sass, At),
                  "wgmma pipeline serialized in kernel '" + C.K.Name +
                      "': the PTX issues " + formatRatio(PtxPerWait) +
                      " wgmma.mma_async per wait, the SASS waits after " +
                      Twine(SW.Waits) + " of " + Twine(SW.Mma) +
                      " warp-group MMAs in loops");
    std::optional<DiagLoc> Src = pythonSource(*C.Sass, At);
    D.source(Src ? Src : pythonSource(C.Ptx, *PW.FirstMma));
    D.related(locate(C.Ptx, *PW.FirstMma),
              "the first wgmma.mma_async in a loop of the PTX");
    if (PW.FirstWait)
      D.related(locate(C.Ptx, *PW.FirstWait), "the PTX waits here");
    D.related(locate(*C.Sass, *SW.FirstMma),
              "the first warp-group MMA in a loop of the SASS");
    D.note(Twine(SW.Waits) +
           " full waits (WARPGROUP.DEPBAR.LE gsb0, 0x0) for " + Twine(SW.Mma) +
           " warp-group MMAs in loops: " + formatRatio(WaitsPerMma) +
           " per MMA (threshold " + formatRatio(SerializedWaitsPerMma) + ")");
    D.note(locate(C.Ptx, PW.FirstWait ? *PW.FirstWait : *PW.FirstMma),
           "the PTX has " + Twine(PW.Waits) + " wgmma.wait_group for " +
               Twine(PW.Mma) + " wgmma.mma_async in loops (" +
               formatRatio(PtxPerWait) + " MMAs per wait), " +
               Twine(PW.FullWaits) +
               " of them wait_group 0: the PTX keeps MMAs in flight");
    Notes.attach(D, "wgmma");
    D.hint("ptxas (wgmma pipeline)",
           "ptxas waits after each wgmma when it cannot keep the pipeline: "
           "registers run short (C7511/C7512: smaller tiles, fewer stages or "
           "more warps), non-wgmma instructions write the accumulator "
           "between wgmma.fence and the wait (C7515: arithmetic or a layout "
           "conversion inside the MMA chain, look at the convert_layout "
           "feeding ttng.warp_group_dot), or the wait is in divergent code "
           "(C7518); set the option Ptxas to see ptxas's reason");
    D.context("wgmma-serialized");
    for (const std::string &Op : SW.Opcodes)
      D.context(Op);
  }
}

void PtxIntentLostInSassCheck::reportPtxWaitsItself(const Code &C,
                                                    const PtxInstruction &Wait,
                                                    unsigned FullWaits,
                                                    unsigned Mma,
                                                    KernelView &V) {
  if (!Remarks)
    return;
  const TtgirModule *Ttgir = optionalTtgir(V);
  const Operation *DotWait = fullDotWait(Ttgir);
  // Gluon kernels have no .ttir: the wait is the author's call.
  bool Gluon = !C.K.has(Stage::TTIR) && C.K.has(Stage::TTGIR);
  auto D = diag(locate(C.Ptx, Wait),
                "the wgmma pipeline of kernel '" + C.K.Name +
                    "' keeps no MMA in flight: the PTX itself waits with "
                    "wgmma.wait_group 0 after " +
                    Twine(FullWaits) + " of " + Twine(Mma) +
                    " wgmma.mma_async in loops",
                Level::Remark);
  std::optional<DiagLoc> Src =
      DotWait ? pythonSource(*Ttgir, *DotWait) : std::nullopt;
  D.source(Src ? Src : pythonSource(C.Ptx, Wait));
  if (DotWait)
    D.related(locate(*Ttgir, *DotWait),
              "ttng.warp_group_dot_wait {pendings = 0} in the loop");
  D.note("ptxas serialized nothing: the SASS waits where the PTX does");
  if (Gluon)
    D.hint("Gluon kernel (the author's warpgroup_mma_wait)",
           "the kernel waits with warpgroup_mma_wait(num_outstanding=0) "
           "after its wgmma: keep one in flight (num_outstanding=1) when the "
           "accumulator is not read before the next MMA");
  else
    explainSyncDot(D, Ttgir, DotWait);
  D.context("wgmma-waits-in-ptx");
}

void PtxIntentLostInSassCheck::checkSetmaxnreg(const Code &C,
                                               PtxasNotes &Notes) {
  const PtxInstruction *FirstSetmaxnreg = nullptr;
  unsigned PtxSetmaxnreg = 0, SassSetmaxnreg = 0;
  std::set<std::string> SetmaxnregOps;
  for (const PtxInstruction &I : C.PF.Instructions)
    if (hasBaseOpcode(I.Opcode, "setmaxnreg")) {
      ++PtxSetmaxnreg;
      SetmaxnregOps.insert(I.Opcode.str());
      if (!FirstSetmaxnreg)
        FirstSetmaxnreg = &I;
    }
  for (const SassInstruction &I : C.SF->Instructions)
    if (hasBaseOpcode(I.Opcode, "USETMAXREG"))
      ++SassSetmaxnreg;
  if (FirstSetmaxnreg && SassSetmaxnreg == 0) {
    auto D =
        diag(locate(C.Ptx, *FirstSetmaxnreg),
             "setmaxnreg ignored in kernel '" + C.K.Name + "': the PTX has " +
                 Twine(PtxSetmaxnreg) + " setmaxnreg, the SASS no USETMAXREG");
    D.source(pythonSource(C.Ptx, *FirstSetmaxnreg));
    D.related(locate(*C.Sass, *C.SF), "the kernel's SASS, without USETMAXREG");
    D.note(Twine(PtxSetmaxnreg) + " setmaxnreg in the PTX, 0 USETMAXREG in "
                                  "the SASS (threshold: at least 1)");
    Notes.attach(D, "setmaxnreg");
    D.hint("ptxas (register reallocation)",
           "ptxas did not keep the register reallocation (its message C7507 "
           "says why: set the option Ptxas); setmaxnreg needs the kernel "
           "compiled with a register limit (.maxnreg, Triton's maxnreg) that "
           "the requested budgets fit: check num_warps and the "
           "warp-specialization register budgets");
    D.context("setmaxnreg-ignored");
    for (const std::string &Op : SetmaxnregOps)
      D.context(Op);
  }
}

Error PtxIntentLostInSassCheck::checkMappings(const Code &C) {
  const FamilyTable &Table = FamilyTable::active();
  SmallVector<StringRef, 8> Wanted;
  StringRef(Mappings).split(Wanted, ',', -1, /*KeepEmpty=*/false);
  for (StringRef &W : Wanted)
    W = W.trim();
  for (StringRef W : Wanted)
    if (W != "*" && none_of(Table.mappings(),
                            [&](const FamilyMapping &M) { return M.Id == W; }))
      return createStringError(inconvertibleErrorCode(),
                               "option Mappings: no mapping '" + W +
                                   "' in the instruction family table");

  // One pass over each stage's instructions counts every mapping.
  struct Tally {
    unsigned Ptx = 0, Sass = 0;
    const PtxInstruction *FirstPtx = nullptr;
    const SassInstruction *FirstSass = nullptr;
  };
  std::vector<Tally> Tallies(Table.mappings().size());
  for (const PtxFunction &F : C.Ptx.Functions)
    for (const PtxInstruction &I : F.Instructions)
      if (unsigned M = C.PtxFamilies.mapping(I); M < Tallies.size()) {
        Tally &T = Tallies[M];
        ++T.Ptx;
        if (!T.FirstPtx)
          T.FirstPtx = &I;
      }
  for (const SassFunction &F : C.Sass->Functions)
    for (const SassInstruction &I : F.Instructions)
      if (unsigned M = C.SassFamilies->mapping(I); M < Tallies.size()) {
        Tally &T = Tallies[M];
        ++T.Sass;
        if (!T.FirstSass)
          T.FirstSass = &I;
      }

  for (unsigned M = 0; M < Table.mappings().size(); ++M) {
    const FamilyMapping &Map = Table.mappings()[M];
    if (!is_contained(Wanted, "*") && !is_contained(Wanted, Map.Id))
      continue;
    const auto &[PtxCount, SassCount, FirstPtx, FirstSass] = Tallies[M];
    if (!FirstPtx)
      continue;
    if (SassCount >= MinSassPerPtx * PtxCount)
      continue;
    auto D = diag(locate(C.Ptx, *FirstPtx),
                  Map.Summary + " instructions dropped in kernel '" + C.K.Name +
                      "': " + Twine(PtxCount) + " in the PTX, " +
                      Twine(SassCount) + " in the SASS");
    D.source(pythonSource(C.Ptx, *FirstPtx));
    if (FirstSass)
      D.related(locate(*C.Sass, *FirstSass),
                "the first " + Map.Id + " instruction of the SASS");
    else
      D.related(locate(*C.Sass, *C.SF),
                "the kernel's SASS, without " + Map.Id + " instructions");
    D.note(Twine(SassCount) + " SASS for " + Twine(PtxCount) +
           " PTX instructions of mapping '" + Map.Id + "' (" + Map.Family +
           "): " + formatRatio(double(SassCount) / PtxCount) +
           " per PTX instruction (threshold " + formatRatio(MinSassPerPtx) +
           ")");
    D.hint("ptxas",
           "ptxas removed instructions the PTX asked for: code it proved "
           "dead (a guard that is always false), or a feature the target "
           "does not have; compare the two stages with `gestell stats`");
    D.context("dropped");
    D.context(Map.Id);
    // The PTX opcodes of the mapping, gathered only for a finding.
    std::set<StringRef> Ops;
    for (const PtxFunction &F : C.Ptx.Functions)
      for (const PtxInstruction &I : F.Instructions)
        if (C.PtxFamilies.mapping(I) == M)
          Ops.insert(I.Opcode);
    for (StringRef Op : Ops)
      D.context(Op);
  }
  return Error::success();
}

void PtxIntentLostInSassCheck::reportPtxasAlone(const Code &C,
                                                PtxasNotes &Notes) {
  std::map<std::string, std::vector<size_t>> Unmatched;
  for (size_t I = 0; I < Notes.Messages.size(); ++I)
    if (!Notes.Used[I])
      Unmatched[Notes.Messages[I].Topic].push_back(I);
  for (const auto &[Topic, Indices] : Unmatched) {
    const PtxInstruction *At = nullptr;
    StringRef Prefix = Topic == "wgmma"        ? "wgmma.mma_async"
                       : Topic == "setmaxnreg" ? "setmaxnreg"
                                               : "";
    if (!Prefix.empty())
      for (const PtxInstruction &I : C.PF.Instructions)
        if (I.Opcode.starts_with(Prefix)) {
          At = &I;
          break;
        }
    DiagLoc Loc = At ? locate(C.Ptx, *At) : locate(C.Ptx, C.PF);
    const PtxasMessage &First = Notes.Messages[Indices.front()];
    auto D = diag(Loc, "ptxas reports lost intent in kernel '" + C.K.Name +
                           "': (" + First.Code + ") " + First.Text);
    if (At)
      D.source(pythonSource(C.Ptx, *At));
    if (C.SF)
      D.related(locate(*C.Sass, *C.SF), "the kernel's SASS");
    for (size_t I : Indices)
      D.note(ptxasNote(Notes.Messages[I]));
    D.hint("ptxas", "the message names what ptxas could not keep; the "
                    "SASS read found no sign of it in loops");
    D.context("ptxas");
    for (size_t I : Indices)
      D.context(Notes.Messages[I].Code);
  }
}

} // namespace gestell::nvidia
