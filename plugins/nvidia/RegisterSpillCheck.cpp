//===- RegisterSpillCheck.cpp - nvidia-register-spill ---------------------===//
#include "RegisterSpillCheck.h"

#include "gestell/Occupancy.h"
#include "gestell/StageFamilies.h"
#include "gestell/utils/KernelCode.h"
#include "gestell/utils/Locate.h"
#include "gestell/utils/OptionalStages.h"

#include "llvm/ADT/StringExtras.h"

#include <set>

using namespace llvm;

namespace gestell::nvidia {

CheckInfo RegisterSpillCheck::info() {
  CheckInfo I;
  I.Id = "nvidia-register-spill";
  I.Summary = "Registers spilled to local memory inside loops (STL/LDL in the "
              "SASS, a stack frame in the cubin)";
  I.Description =
      "ptxas ran out of registers and keeps values in local memory: the "
      "cubin records the stack frame, the SASS has the STL/LDL. Spills "
      "inside a loop are paid on every iteration (warning, at the first "
      "spill in a loop, with the loop's Python line and the registers in "
      "use); spills outside loops (or fewer in loops than MinLoopSpills), "
      "or a stack frame when there is no SASS "
      "to place them, are a remark.";
  I.Category = "performance";
  I.Precision = "very-high"; // docs/checks/<id>.md, "On real code"
  I.Tags = {"ptxas", "registers"};
  I.DefaultLevel = Level::Warning;
  I.Stages = {Stage::Cubin};
  return I;
}

RegisterSpillCheck::RegisterSpillCheck(StringRef Name, CheckContext &Context)
    : Check(Name, Context), MinLoopSpills(Options.get("MinLoopSpills", 1u)),
      Remarks(Options.get("Remarks", true)) {}

void RegisterSpillCheck::storeOptions(OptionMap &Opts) const {
  Options.store(Opts, "MinLoopSpills", MinLoopSpills);
  Options.store(Opts, "Remarks", Remarks);
}

namespace {
/// "255 registers per thread (limit 255)".
std::string registersNote(const CubinKernel &CK, const Kernel &K) {
  std::string S = std::to_string(CK.Registers) + " registers per thread";
  if (CK.MaxRegisters)
    S += " (ptxas limit " + std::to_string(*CK.MaxRegisters) + ")";
  else if (K.Meta && K.Meta->MaxNReg)
    S += " (maxnreg " + std::to_string(*K.Meta->MaxNReg) + ")";
  if (K.Meta && K.Meta->NumWarps)
    S += ", " + std::to_string(*K.Meta->NumWarps) + " warps";
  return S;
}
} // namespace

namespace {
/// What the stack frame holds: the PTX's own local arrays (rounded as
/// ptxas lays out its frame, to 8 bytes) and, beyond them, spills.
struct FrameSplit {
  bool PtxKnown = false;          ///< the PTX tells spills from local arrays
  uint64_t LocalArrays = 0;       ///< bytes the PTX declares `.local`
  std::optional<DiagLoc> LocalAt; ///< its first `.local` declaration
  uint64_t Spilled = 0;           ///< stack frame minus the local arrays
};

FrameSplit splitFrame(CheckInput &In, const CubinKernel &CK) {
  FrameSplit F;
  const Kernel &K = In.Kernel.kernel();
  // A parse the view already holds answers at once (gestell diff counts the
  // PTX first). Otherwise a PTX that names no `.local` declares no local
  // arrays: the whole frame is spills, and the PTX need not be parsed.
  const PtxModule *Ptx = In.Kernel.parsedPtx();
  const PtxFunction *PF = Ptx ? kernelFunction(*Ptx, K.Name) : nullptr;
  if (!PF) {
    if (K.has(Stage::PTX) && !stageMayMention(K, Stage::PTX, {".local"})) {
      F.PtxKnown = true;
      F.Spilled = CK.Stack;
      return F;
    }
    if (!(Ptx = optionalPtx(In.Kernel))) {
      F.Spilled = CK.Stack; // unknown split: the frame is all there is
      return F;
    }
    PF = kernelFunction(*Ptx, K.Name);
  }
  F.PtxKnown = PF != nullptr;
  if (PF) {
    F.LocalArrays = PF->LocalBytes;
    if (F.LocalArrays)
      F.LocalAt = DiagLoc::artifact(Stage::PTX, Ptx->Path, PF->LocalLine, 2);
  }
  uint64_t Declared = alignTo(F.LocalArrays, 8);
  F.Spilled = CK.Stack > Declared ? CK.Stack - Declared : 0;
  return F;
}

/// The kernel's entry in the cubin: the one named like the kernel, else the
/// only entry; null when several entries are named otherwise (no guess).
const CubinKernel *cubinEntry(const CubinInfo &Cubin, StringRef Name) {
  if (const CubinKernel *CK = Cubin.find(Name))
    return CK;
  const CubinKernel *Only = nullptr;
  for (const CubinKernel &C : Cubin.Kernels)
    if (C.IsEntry) {
      if (Only)
        return nullptr;
      Only = &C;
    }
  return Only;
}

/// "N registers ..., stack frame of B bytes: S bytes of spills beside L
/// bytes of local arrays the PTX declares".
std::string frameNote(const CubinKernel &CK, const Kernel &K,
                      const FrameSplit &Split, const std::string &Frame) {
  std::string Note = registersNote(CK, K) + ", " + Frame;
  if (!Split.PtxKnown)
    return Note + " (no PTX to tell spills from local arrays it declares)";
  return Note + ": " + std::to_string(Split.Spilled) + " bytes of spills" +
         (Split.LocalArrays ? " beside " + std::to_string(Split.LocalArrays) +
                                  " bytes of local arrays the PTX declares"
                            : std::string());
}
} // namespace

struct RegisterSpillCheck::Frame {
  const Kernel &K;
  const CubinKernel &CK;
  FrameSplit Split;
  DiagLoc CubinLoc;
  std::string Text; ///< "stack frame of N bytes"
  std::string Note; ///< frameNote()

  void noteLocalArrays(DiagnosticBuilder &D) const {
    if (Split.LocalAt)
      D.note(*Split.LocalAt,
             "the PTX declares " + Twine(Split.LocalArrays) +
                 " bytes of local arrays (.local): their STL/LDL are not "
                 "spills");
  }
  /// "N bytes spilled, " when the PTX tells spills from local arrays.
  std::string bytes() const {
    return Split.PtxKnown ? std::to_string(Split.Spilled) + " bytes spilled, "
                          : std::string();
  }
  std::string mixed() const {
    return Split.LocalArrays ? " (spills and local-array accesses)"
                             : std::string();
  }
  /// The most registers ptxas may give a thread: the cubin's limit, else
  /// the kernel's maxnreg, else the architecture's 255.
  unsigned cap() const {
    constexpr unsigned Most = SmLimits::MaxRegistersPerThread;
    if (CK.MaxRegisters)
      return *CK.MaxRegisters;
    if (K.Meta && K.Meta->MaxNReg && *K.Meta->MaxNReg > 0)
      return unsigned(std::min<int64_t>(*K.Meta->MaxNReg, Most));
    return Most;
  }
  /// Whether ptxas spilled more than an allocation unit (8 registers) short
  /// of that cap. The budget was then its own choice: given the block size
  /// Triton declares (.reqntid, num_warps x 32 threads), ptxas keeps fewer
  /// registers per thread so that more warps stay resident, and spills
  /// beyond them (a `.maxnreg` lifts it: 32 -> 255 registers and 4300 ->
  /// 2888 bytes of spill stores for a real Gluon kernel, 56 -> 250 and no
  /// spill for an Inductor `triton_mm`; docs/checks/nvidia-register-spill.md).
  /// A warp-specialized kernel's partitions set their own budgets
  /// (setmaxnreg, USETMAXREG in the SASS): those are the cap, not this.
  bool belowCap(const SassFunction &SF) const {
    return CK.Registers + 8 < cap() &&
           none_of(SF.Instructions, [](const SassInstruction &I) {
             return I.Opcode.starts_with("USETMAXREG");
           });
  }
  /// The fix hint's first sentence when belowCap(SF).
  std::string budgetHint() const {
    std::string Warps =
        K.Meta && K.Meta->NumWarps
            ? " (num_warps " + std::to_string(*K.Meta->NumWarps) + ": " +
                  std::to_string(*K.Meta->NumWarps * 32) + " threads)"
            : std::string();
    return "ptxas spilled at " + std::to_string(CK.Registers) + " of the " +
           std::to_string(cap()) +
           " registers a thread may have: for the block size Triton "
           "declares" +
           Warps +
           " it chose this budget to keep more warps resident. A maxnreg on "
           "the kernel (triton.Config(..., maxnreg=...), at most " +
           std::to_string(cap()) +
           ") lets it use more of them, at the cost of resident warps";
  }
};

struct RegisterSpillCheck::Spills {
  unsigned Total = 0, Loads = 0, InLoops = 0, LoadsInLoops = 0;
  uint32_t FirstInLoop = NoIndex, First = NoIndex;
  std::set<std::string> Ops; ///< opcodes in loops, without modifiers

  Spills(const SassFunction &SF, const StageFamilies &Families) {
    unsigned Spill = Families.familyIndex("spill");
    for (uint32_t I = 0; I < SF.Instructions.size(); ++I) {
      StringRef Op = SF.Instructions[I].Opcode;
      if (!Families.in(SF.Instructions[I], Spill))
        continue;
      ++Total;
      Loads += Op.starts_with("LDL");
      if (First == NoIndex)
        First = I;
      if (!SF.CF.inLoop(I))
        continue;
      ++InLoops;
      Ops.insert(Op.split('.').first.str());
      if (Op.starts_with("LDL"))
        ++LoadsInLoops;
      if (FirstInLoop == NoIndex)
        FirstInLoop = I;
    }
  }
};

Error RegisterSpillCheck::check(CheckInput &In) {
  const Kernel &K = In.Kernel.kernel();
  Expected<const CubinInfo &> Cubin = In.Kernel.cubin();
  if (!Cubin)
    return Cubin.takeError();
  const CubinKernel *CK = cubinEntry(*Cubin, K.Name);
  // No local memory at all: nothing spilled, and no other stage is read.
  if (!CK || (CK->Stack == 0 && CK->Local == 0))
    return Error::success();
  // The SASS's spill instructions first: without any there is nothing to
  // report, and the PTX is not read.
  const SassModule *Sass = optionalSass(In.Kernel);
  const SassFunction *SF = Sass ? kernelFunction(*Sass, K.Name) : nullptr;
  if (Sass && !SF)
    return Error::success(); // no SASS function for this kernel
  if (!Sass && !Remarks)
    return Error::success(); // without SASS there is only a remark to give
  std::optional<Spills> S;
  if (SF) {
    S.emplace(*SF, In.Kernel.families(*Sass));
    // ptxas reloads every value it spills (LDL). A frame the kernel only
    // stores to holds what a call reads: the arguments of the syscall
    // through which sm_120's ptxas issues a TMA copy
    // (__cuda_syscall_cp_async_bulk_tensor_*, `STL.64 [R1], RZ` before
    // CALL.ABS.NOINC), where ptxas -v says "0 bytes spill stores".
    if (S->Total == 0 || S->Loads == 0)
      return Error::success();
  }
  // Local memory the PTX itself declares (libdevice's sin/cos reduction
  // tables, local arrays) is not a spill: ptxas -v reports 0 bytes spilled
  // for a frame that holds only that. A spill is the frame beyond it.
  FrameSplit Split = splitFrame(In, *CK);
  if (Split.PtxKnown && Split.Spilled == 0)
    return Error::success();
  std::string Text = "stack frame of " + std::to_string(CK->Stack) + " bytes";
  Frame F{K,     *CK,
          Split, DiagLoc::artifact(Stage::Cubin, Cubin->Path),
          Text,  frameNote(*CK, K, Split, Text)};

  if (!Sass)
    reportWithoutSass(F, Cubin->Syscalls);
  else if (S->InLoops >= MinLoopSpills && S->FirstInLoop != NoIndex)
    reportInLoop(In, F, *Sass, *SF, *S);
  else
    reportBelowThreshold(F, *Sass, *SF, *S);
  return Error::success();
}

void RegisterSpillCheck::reportWithoutSass(const Frame &F,
                                           ArrayRef<std::string> Syscalls) {
  // A syscall's arguments take stack too (sm_120's TMA copies): only the
  // SASS (its LDL) tells them from spills.
  if (!Syscalls.empty()) {
    auto D = diag(F.CubinLoc,
                  "kernel '" + F.K.Name + "' has a " + F.Text +
                      ", spills or the arguments of the syscalls it makes, "
                      "and no SASS to tell which",
                  Level::Remark);
    D.note(registersNote(F.CK, F.K) + ", " + F.Text);
    D.note(F.CubinLoc, "the cubin calls " + join(Syscalls, ", ") +
                           ", whose arguments ptxas keeps in the stack frame");
    D.hint("ptxas register allocation",
           "give gestell an nvdisasm that decodes this cubin (--nvdisasm, "
           "PATH or the triton package): a frame the kernel never loads "
           "back (no LDL) holds no spill");
    D.context("stack-without-sass");
    return;
  }
  auto D = diag(F.CubinLoc,
                "kernel '" + F.K.Name + "' has a " + F.Text +
                    (F.Split.PtxKnown ? ", " + std::to_string(F.Split.Spilled) +
                                            " bytes of it spills,"
                                      : std::string()) +
                    " and no SASS to show where it spills",
                Level::Remark);
  D.note(F.Note);
  D.hint("ptxas register allocation",
         "give gestell an nvdisasm (--nvdisasm, PATH or the triton "
         "package) to see whether the spills are inside a loop");
  D.context("stack-without-sass");
}

void RegisterSpillCheck::reportInLoop(CheckInput &In, const Frame &F,
                                      const SassModule &Sass,
                                      const SassFunction &SF, const Spills &S) {
  const SassInstruction &At = SF.Instructions[S.FirstInLoop];
  auto D = diag(locate(Sass, At),
                "kernel '" + F.K.Name +
                    "' spills registers inside a loop: " + F.bytes() +
                    Twine(S.InLoops) + " local-memory accesses in loops at " +
                    Twine(F.CK.Registers) + " registers");
  D.source(pythonSource(Sass, At));
  D.related(F.CubinLoc, "the cubin: registers and stack frame");
  D.note(Twine(S.InLoops) + " local-memory instructions in loops" + F.mixed() +
         " (threshold " + Twine(MinLoopSpills) +
         "): " + Twine(S.InLoops - S.LoadsInLoops) + " STL, " +
         Twine(S.LoadsInLoops) + " LDL; " + Twine(S.Total) + " in the kernel");
  D.note(F.CubinLoc, F.Note);
  F.noteLocalArrays(D);
  uint32_t L = outermostLoopOf(SF.CF, S.FirstInLoop);
  if (std::optional<DiagLoc> LoopSrc =
          loopSource(Sass, SF, L, optionalTtgir(In.Kernel)))
    D.note(*LoopSrc, "in the loop at this Python line");
  if (F.belowCap(SF))
    D.hint("ptxas register allocation",
           F.budgetHint() +
               "; shrinking what each thread holds (smaller tiles or "
               "num_stages, more warps) removes the need");
  else
    D.hint("ptxas register allocation",
           "the loop needs more registers than ptxas can give each thread "
           "(at most 255, fewer under maxnreg): shrink the tiles "
           "(BLOCK_M/BLOCK_N/BLOCK_K) or num_stages, raise num_warps so each "
           "thread holds less of the tile, or give the computing partition "
           "of a warp-specialized kernel more registers (maxnreg, "
           "setmaxnreg budgets)");
  D.context("spill-in-loop");
  for (const std::string &Op : S.Ops)
    D.context(Op);
}

// Spills outside loops, or fewer in loops than MinLoopSpills: a warning
// when ptxas confirms them (the frame exceeds the PTX's own local arrays),
// a remark when there is no PTX to tell.
void RegisterSpillCheck::reportBelowThreshold(const Frame &F,
                                              const SassModule &Sass,
                                              const SassFunction &SF,
                                              const Spills &S) {
  bool Confirmed = F.Split.PtxKnown;
  if (!Confirmed && !Remarks)
    return;
  const SassInstruction &At =
      SF.Instructions[S.FirstInLoop != NoIndex ? S.FirstInLoop : S.First];
  auto D = diag(locate(Sass, At),
                "kernel '" + F.K.Name + "' spills registers" +
                    (!Confirmed  ? ""
                     : S.InLoops ? ", few of them in loops"
                                 : " outside its loops") +
                    ": " + F.bytes() + Twine(S.Total) +
                    " local-memory accesses at " + Twine(F.CK.Registers) +
                    " registers, " +
                    (S.InLoops ? Twine(S.InLoops) + " in loops"
                               : Twine("none in a loop")),
                Confirmed ? Level::Warning : Level::Remark);
  D.source(pythonSource(Sass, At));
  D.related(F.CubinLoc, "the cubin: registers and stack frame");
  D.note(Twine(S.InLoops) + " local-memory instructions in loops" + F.mixed() +
         " (threshold " + Twine(MinLoopSpills) + "), " + Twine(S.Total) +
         " in the kernel");
  D.note(F.CubinLoc, F.Note);
  F.noteLocalArrays(D);
  if (F.belowCap(SF))
    D.hint("ptxas register allocation",
           F.budgetHint() +
               (S.InLoops ? "; fewer spills in loops than MinLoopSpills, "
                            "each a local-memory access on every iteration"
                          : "; spills outside loops cost less than spills "
                            "in one"));
  else
    D.hint("ptxas register allocation",
           S.InLoops ? "fewer spills in loops than MinLoopSpills; each is a "
                       "local-memory access on every iteration, and they show "
                       "the kernel at its register limit"
                     : "spills outside loops cost less than spills in one; "
                       "they show the kernel at its register limit, where a "
                       "small change can push spills into the loop: shrink "
                       "the tiles, raise num_warps or give the partition "
                       "more registers");
  D.context(S.InLoops ? "spill-below-threshold" : "spill-outside-loops");
  if (!Confirmed)
    D.context("frame-unsplit");
}

} // namespace gestell::nvidia
